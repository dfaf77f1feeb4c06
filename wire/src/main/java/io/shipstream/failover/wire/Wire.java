package io.shipstream.failover.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.Collection;

/**
 * How every process writes and reads the records of this package: the one mapper both ends use.
 *
 * <p>A reader ignores fields it does not know, so a newer writer can add some (a watcher of
 * release N+1 answering a sidecar of release N). It does not guess at a value of the wrong type:
 * a number where a site name belongs, or the text "true" where a boolean does, makes the body
 * unreadable rather than a guess (the sidecar then counts that answer as no contact), except where a
 * record says otherwise ({@link WholeMillis}).
 */
public final class Wire {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
      // A number or a boolean where text belongs (a site name, a time) is no site name either.
      .withCoercionConfig(LogicalType.Textual, text -> text
          .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
          .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
          .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
      .build();

  private Wire() {}

  /** The record as the JSON the other process reads. */
  public static String write(Object record) {
    try {
      return JSON.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + record.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads a JSON object into {@code type}, ignoring unknown fields.
   *
   * @throws IllegalArgumentException when the body is not JSON, not an object, or holds a known
   *     field of the wrong type (its message names the field)
   */
  public static <T> T read(byte[] body, Class<T> type) {
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON", e);
    }
    return read(node, type);
  }

  /** {@link #read(byte[], Class)} of a text body. */
  public static <T> T read(String body, Class<T> type) {
    return read(body == null ? new byte[0] : body.getBytes(java.nio.charset.StandardCharsets.UTF_8), type);
  }

  /** {@link #read(byte[], Class)} of a parsed body. */
  public static <T> T read(JsonNode node, Class<T> type) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("expected a JSON object");
    }
    try {
      return JSON.treeToValue(node, type);
    } catch (MismatchedInputException e) {
      throw new IllegalArgumentException(path(e) + " is not " + expected(e.getTargetType()), e);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("unreadable " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
    }
  }

  /** The JSON tree of a record, as {@link #write} writes it. */
  public static JsonNode tree(Object record) {
    return JSON.valueToTree(record);
  }

  private static String path(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference reference : e.getPath()) {
      if (reference.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.length() == 0 ? "the body" : path.toString();
  }

  private static String expected(Class<?> type) {
    if (type == null) {
      return "of the expected type";
    }
    if (type == String.class) {
      return "text";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a whole number";
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "an array";
    }
    return "an object";
  }
}
