package io.shipstream.failover.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The answers each release's processes gave, kept as JSON under {@code wire/<release>/} (this
 * module's test jar, so the sidecar, watcher and worker tests read them too), and the check that
 * a newer answer still carries every field of an older one. A field counts as carried when its
 * key is there, even with null: an older reader tells an absent field from a null one only by
 * the key.
 */
public final class Golden {
  /** Every release whose answers are kept; a new release adds its directory and its name here. */
  public static final List<String> RELEASES = List.of("0.1.0");

  /** Each golden file and the record it is read as. */
  public static final Map<String, Class<?>> FILES = Map.of(
      "active-site.json", ActiveSiteAnswer.class,
      "active-site-fresh.json", ActiveSiteAnswer.class,
      "active-site-never-active.json", ActiveSiteAnswer.class,
      "active-site-deleted.json", ActiveSiteAnswer.class,
      "active-site-error.json", ErrorAnswer.class,
      "peer-active-site.json", PeerView.class,
      "peer-ping.json", PeerPing.class,
      "sidecar-status.json", SidecarStatusAnswer.class,
      "sidecar-status-booting.json", SidecarStatusAnswer.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  private Golden() {}

  /** The raw bytes of {@code file} as {@code release} answered it. */
  public static byte[] bytes(String release, String file) {
    String resource = "/wire/" + release + "/" + file;
    try (InputStream in = Golden.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no golden answer " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code file} of {@code release} as a JSON tree. */
  public static JsonNode tree(String release, String file) {
    try {
      return JSON.readTree(bytes(release, file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every release's copy of {@code file}, as "release/file". */
  public static List<String> everyRelease(String file) {
    List<String> out = new ArrayList<>();
    for (String release : RELEASES) {
      out.add(release + "/" + file);
    }
    return out;
  }

  /**
   * The field paths of a JSON value: {@code view.activeSite}, {@code peers[].problem} (the union
   * over an array's elements), each key counted whether its value is null or not.
   */
  public static Set<String> fieldPaths(JsonNode node) {
    Set<String> paths = new TreeSet<>();
    collect(node, "", paths);
    return paths;
  }

  /** The field paths {@code older} has that {@code newer} lacks: what a reader of {@code older} would miss. */
  public static Set<String> missing(JsonNode older, JsonNode newer) {
    Set<String> missing = new TreeSet<>(fieldPaths(older));
    missing.removeAll(fieldPaths(newer));
    return missing;
  }

  private static void collect(JsonNode node, String prefix, Set<String> paths) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext();) {
        Map.Entry<String, JsonNode> field = fields.next();
        String path = prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey();
        paths.add(path);
        collect(field.getValue(), path, paths);
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        collect(element, prefix + "[]", paths);
      }
    }
  }
}
