package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A watch as a real API server streams it over HTTP (one JSON event per line), made by listing
 * the collection on the mock every {@code interval}: the mock watches only over WebSockets, which
 * kubectl does not use. An object seen for the first time is ADDED, a changed resourceVersion is
 * MODIFIED, a vanished object is DELETED. From a resourceVersion, only objects stored after it are
 * reported, as MODIFIED (a list cannot tell a creation from a change; kubectl treats both alike).
 */
final class PolledWatch {
  /** Lists the collection: the items as the mock holds them now. */
  interface Lister {
    List<JsonNode> list() throws IOException, InterruptedException;
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private PolledWatch() {}

  /**
   * Streams events to {@code out} until {@code timeout} passes or the client goes away. {@code wrap}
   * turns an object into what the client asked to receive (the object, or a Table of it).
   */
  static void stream(Lister lister, FieldSelector selector, String sinceResourceVersion,
      UnaryOperator<JsonNode> wrap, OutputStream out, Duration timeout, Duration interval)
      throws IOException, InterruptedException {
    Map<String, JsonNode> seen = new HashMap<>();
    boolean first = true;
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      Map<String, JsonNode> now = new HashMap<>();
      for (JsonNode item : lister.list()) {
        if (selector == null || selector.matches(item)) {
          now.put(key(item), item);
        }
      }
      for (Map.Entry<String, JsonNode> e : now.entrySet()) {
        JsonNode before = seen.get(e.getKey());
        if (first) {
          if (sinceResourceVersion == null || sinceResourceVersion.isEmpty() || sinceResourceVersion.equals("0")) {
            send(out, "ADDED", wrap.apply(e.getValue()));
          } else if (newer(resourceVersion(e.getValue()), sinceResourceVersion)) {
            send(out, "MODIFIED", wrap.apply(e.getValue()));
          }
        } else if (before == null) {
          send(out, "ADDED", wrap.apply(e.getValue()));
        } else if (!resourceVersion(before).equals(resourceVersion(e.getValue()))) {
          send(out, "MODIFIED", wrap.apply(e.getValue()));
        }
      }
      for (Map.Entry<String, JsonNode> e : seen.entrySet()) {
        if (!now.containsKey(e.getKey())) {
          send(out, "DELETED", wrap.apply(e.getValue()));
        }
      }
      seen = now;
      first = false;
      Thread.sleep(interval.toMillis());
    }
  }

  private static void send(OutputStream out, String type, JsonNode object) throws IOException {
    String event = JSON.createObjectNode().put("type", type).set("object", object).toString() + "\n";
    out.write(event.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static String key(JsonNode item) {
    return item.path("metadata").path("namespace").asText("") + "/" + item.path("metadata").path("name").asText();
  }

  private static String resourceVersion(JsonNode item) {
    return item.path("metadata").path("resourceVersion").asText("");
  }

  /** The mock's resourceVersions are increasing integers; anything else is taken as changed. */
  private static boolean newer(String version, String since) {
    try {
      return Long.parseLong(version) > Long.parseLong(since);
    } catch (NumberFormatException e) {
      return !version.equals(since);
    }
  }
}
