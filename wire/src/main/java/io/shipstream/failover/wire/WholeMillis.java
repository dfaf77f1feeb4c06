package io.shipstream.failover.wire;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * A duration in positive whole milliseconds, or null for anything else ("20s", 0, 2.5): a reader
 * that does not get a usable value keeps the one it had, rather than refusing the whole answer
 * (the sidecar keeps the timing it last learned; the worker reports none).
 */
public final class WholeMillis extends StdDeserializer<Long> {
  public WholeMillis() {
    super(Long.class);
  }

  @Override
  public Long deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT
        && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      long value = parser.getLongValue();
      return value > 0 ? value : null;
    }
    parser.skipChildren();
    return null;
  }
}
