package io.shipstream.failover.workflows.release;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.shipstream.failover.wire.Golden;
import io.shipstream.failover.workflows.PayloadConverter;
import io.shipstream.failover.workflows.RegisteredTypes;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.EncodingKeys;
import java.io.IOException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A release's golden payloads: what crosses between processes of different releases in a rolling
 * upgrade without being in a workflow's own code, so that replay does not cover it. The watcher
 * starts, signals and queries the workflows a worker of another release runs; a workflow task on
 * one worker schedules an activity another worker executes, and reads its result. Each is a
 * payload of the Temporal data converter the worker and the watcher use.
 *
 * <p>{@code histories/<version>/payloads/} holds one file a slot: every argument and every result of
 * every workflow, signal, query, update and activity type the release registered ({@link
 * RegisteredTypes#methods}), named {@code <kind>-<type>[-<name>].arg<i>.json} or {@code
 * ....result.json} ({@code workflow-PlannedFailover.arg0.json}, {@code activity-MysqlFence.result.json},
 * {@code query-PlannedFailover-status.result.json}); its content is the payload's data, byte for
 * byte, of a {@link SampleValues fully populated} value. A later build decodes each file with its
 * own type of the same slot, and checks that re-encoding what it decoded still carries every field
 * the file had: readers ignore unknown fields, writers never drop a field a released reader needs.
 * A field dropped on purpose is named, with why that is safe, in {@value #DROPPED} beside the
 * release directories.
 */
public final class ReleasePayloads {
  /** The payloads' directory inside a release directory. */
  public static final String DIR = "payloads";
  /** Beside the release directories: the released fields HEAD drops on purpose, each with its reason. */
  public static final String DROPPED = "dropped-payload-fields.txt";
  /** The worker's and the watcher's data converter (both build their client with its options). */
  public static final DataConverter CONVERTER = PayloadConverter.INSTANCE;
  private static final String JSON = "json/plain";
  private static final ObjectMapper TREES = new ObjectMapper();
  private static final Pattern FILE = Pattern.compile("(.+)\\.(arg(\\d+)|result)\\.json");

  private ReleasePayloads() {}

  /** What HEAD registers, each name with its method. */
  public static SortedMap<String, Method> head() {
    return RegisteredTypes.methods(ReleasedHistories.WORKFLOWS, ReleasedHistories.ACTIVITIES);
  }

  /** One argument ({@code index} >= 0) or the result ({@code index} -1) of a registered name's method. */
  public record Slot(String name, Method method, int index) {
    public String file() {
      return base(name) + (index < 0 ? ".result" : ".arg" + index) + ".json";
    }

    public Type type() {
      return index < 0 ? method.getGenericReturnType() : method.getGenericParameterTypes()[index];
    }

    public Class<?> rawType() {
      return index < 0 ? method.getReturnType() : method.getParameterTypes()[index];
    }
  }

  static String base(String name) {
    return name.replace(' ', '-');
  }

  /** Every slot of {@code methods}: each argument, and the result unless the method returns nothing. */
  public static List<Slot> slots(SortedMap<String, Method> methods) {
    List<Slot> slots = new ArrayList<>();
    methods.forEach((name, method) -> {
      for (int i = 0; i < method.getParameterCount(); i++) {
        slots.add(new Slot(name, method, i));
      }
      if (method.getReturnType() != void.class && method.getReturnType() != Void.class) {
        slots.add(new Slot(name, method, -1));
      }
    });
    return slots;
  }

  // --- recording ------------------------------------------------------------------------------

  /** A slot's payload data: its fully populated sample, as the data converter encodes it. */
  public static byte[] encode(Slot slot) {
    Object sample;
    try {
      sample = SampleValues.of(slot.type());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(slot.file() + " (" + slot.method() + "): " + e.getMessage(), e);
    }
    Payload payload = CONVERTER.toPayload(sample).orElseThrow();
    String encoding = payload.getMetadataOrDefault(EncodingKeys.METADATA_ENCODING_KEY, ByteString.EMPTY).toStringUtf8();
    if (!JSON.equals(encoding)) {
      throw new IllegalStateException(slot.file() + " encodes as " + encoding + ", not " + JSON
          + ": the golden payloads hold JSON only; teach ReleasePayloads the other encoding");
    }
    return payload.getData().toByteArray();
  }

  /** Writes a file of every slot of {@code methods} into {@code dir}, which must not hold any yet. */
  public static List<Path> write(Path dir, SortedMap<String, Method> methods) throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> existing = Files.list(dir)) {
      if (existing.findAny().isPresent()) {
        throw new IllegalStateException(dir + " holds files already: released payloads are never re-recorded");
      }
    }
    List<Path> written = new ArrayList<>();
    for (Slot slot : slots(methods)) {
      written.add(Files.write(dir.resolve(slot.file()), encode(slot)));
    }
    return written;
  }

  // --- checking -------------------------------------------------------------------------------

  /** The payload files of a release's {@code payloads/} directory, by name. */
  public static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
    }
  }

  /**
   * What is wrong with one released payload file read by HEAD ({@code methods}), each problem
   * naming the file: HEAD has no such slot any more, cannot decode it, or re-encodes what it
   * decoded without a field the file had (unless {@code dropped} names that field).
   */
  public static List<String> problems(Path file, SortedMap<String, Method> methods, Collection<String> dropped)
      throws IOException {
    String name = file.getFileName().toString();
    Matcher m = FILE.matcher(name);
    if (!m.matches()) {
      return List.of(name + ": not a payload file's name (<kind>-<type>.arg<i>.json or .result.json)");
    }
    Map<String, String> byBase = new HashMap<>();
    methods.keySet().forEach(n -> byBase.put(base(n), n));
    String registered = byBase.get(m.group(1));
    if (registered == null) {
      return List.of(name + ": HEAD registers no " + m.group(1).replace('-', ' ')
          + " (types.txt's check names it too): nothing decodes what a caller of the release sends");
    }
    Method method = methods.get(registered);
    Slot slot;
    if (m.group(3) != null) {
      int index = Integer.parseInt(m.group(3));
      if (index >= method.getParameterCount()) {
        return List.of(name + ": HEAD's " + registered + " takes " + method.getParameterCount()
            + " argument(s): argument " + index + " a caller of the release sends is dropped");
      }
      slot = new Slot(registered, method, index);
    } else {
      if (method.getReturnType() == void.class || method.getReturnType() == Void.class) {
        return List.of(name + ": HEAD's " + registered + " returns nothing: a caller of the release reads a result");
      }
      slot = new Slot(registered, method, -1);
    }
    byte[] released = Files.readAllBytes(file);
    Object decoded;
    try {
      decoded = decode(released, slot);
    } catch (RuntimeException e) {
      return List.of(name + ": HEAD's " + slot.type().getTypeName() + " does not decode it: " + e.getMessage());
    }
    JsonNode before = TREES.readTree(released);
    JsonNode after = TREES.readTree(CONVERTER.toPayload(decoded).orElseThrow().getData().toByteArray());
    TreeSet<String> lost = new TreeSet<>(Golden.missing(before, after));
    if (!before.isNull() && after.isNull()) {
      lost.add("(the value)");
    }
    List<String> problems = new ArrayList<>();
    for (String path : lost) {
      if (!dropped.contains(path)) {
        problems.add(name + ": HEAD's " + slot.type().getTypeName() + " loses " + path
            + " (decoded, then encoded again without it): a reader of the release needs it; keep the field, or"
            + " name it in " + DROPPED + " with why dropping it is safe");
      }
    }
    for (String path : dropped) {
      if (!lost.contains(path)) {
        problems.add(name + ": " + DROPPED + " names " + path + ", which HEAD does not lose: remove that line");
      }
    }
    return problems;
  }

  /** Decodes a slot's payload data with the data converter, as a worker or a watcher does. */
  public static Object decode(byte[] data, Slot slot) {
    Payload payload = Payload.newBuilder()
        .putMetadata(EncodingKeys.METADATA_ENCODING_KEY, ByteString.copyFromUtf8(JSON))
        .setData(ByteString.copyFrom(data)).build();
    return CONVERTER.fromPayload(payload, slot.rawType(), slot.type());
  }

  // --- the released fields HEAD drops on purpose -----------------------------------------------

  /**
   * {@value #DROPPED}: {@code <version> <file> <field path> <why it is safe>} a line, {@code #}
   * comments; by {@code <version>/<file>}, the field paths named. A line without its reason is refused.
   */
  public static Map<String, List<String>> dropped(Path file) throws IOException {
    Map<String, List<String>> dropped = new TreeMap<>();
    if (!Files.isRegularFile(file)) {
      return dropped;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      String[] parts = l.split("\\s+", 4);
      if (parts.length < 4) {
        throw new IllegalArgumentException(file.getFileName() + ": '" + l
            + "' is not '<version> <file> <field path> <why dropping it is safe>'");
      }
      dropped.computeIfAbsent(parts[0] + "/" + parts[1], k -> new ArrayList<>()).add(parts[2]);
    }
    return dropped;
  }

  // --- unknown fields --------------------------------------------------------------------------

  /**
   * The payload with a field no release wrote added to the top-level object and to every object
   * nested in it that a record of {@code type} reads (a map's entries are data, not fields, and are
   * left alone): what a reader of this release gets from a writer of a later one.
   */
  static JsonNode withUnknownFields(JsonNode node, Type type) {
    JsonNode copy = node.deepCopy();
    addUnknown(copy, type);
    return copy;
  }

  static final String UNKNOWN = "fieldOfALaterRelease";

  private static void addUnknown(JsonNode node, Type type) {
    Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType()
        : type instanceof Class<?> c ? c : Object.class;
    Type[] arguments = type instanceof ParameterizedType p ? p.getActualTypeArguments() : new Type[0];
    if (node.isObject() && raw.isRecord()) {
      ObjectNode object = (ObjectNode) node;
      for (RecordComponent component : raw.getRecordComponents()) {
        JsonNode child = object.get(component.getName());
        if (child != null) {
          addUnknown(child, component.getGenericType());
        }
      }
      object.putObject(UNKNOWN).put("since", "a later release").putArray("values").add(1);
    } else if (node.isArray()) {
      Type element = raw.isArray() ? raw.getComponentType()
          : type instanceof GenericArrayType g ? g.getGenericComponentType()
              : arguments.length == 1 ? arguments[0] : Object.class;
      for (JsonNode child : (ArrayNode) node) {
        addUnknown(child, element);
      }
    } else if (node.isObject() && Map.class.isAssignableFrom(raw) && arguments.length == 2) {
      node.forEach(value -> addUnknown(value, arguments[1]));
    } else if (raw == Optional.class && arguments.length == 1) {
      addUnknown(node, arguments[0]);
    }
  }

  /** The payload of a slot, with unknown fields added, decoded: the converter must ignore them. */
  static Object decodeWithUnknownFields(byte[] data, Slot slot) throws IOException {
    return decode(TREES.writeValueAsBytes(withUnknownFields(TREES.readTree(data), slot.type())), slot);
  }

  /** The field paths of a payload, as the wire's golden answers count them ({@link Golden#fieldPaths}). */
  static Set<String> fieldPaths(byte[] data) throws IOException {
    return Golden.fieldPaths(TREES.readTree(data));
  }

  static byte[] encodeValue(Object value) {
    return CONVERTER.toPayload(value).orElseThrow().getData().toByteArray();
  }
}
