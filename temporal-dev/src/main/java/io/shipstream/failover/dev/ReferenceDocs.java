package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.shipstream.failover.model.Annotations;
import io.shipstream.failover.runtime.Metric;
import io.shipstream.failover.workflows.contract.Events;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes the reference pages of {@code docs/reference/} from the code's own catalogues: the
 * annotations ({@link Annotations}), the MysqlFailoverGroup's spec and status (the CRD schema the
 * model module generates), the Kubernetes Events ({@link Events}, with who emits each one, found in
 * the sources) and the Prometheus metrics ({@link Metric}). The pages are never edited by hand:
 * ReferenceDocsTest fails while a committed page differs from what this writes, and names
 * {@link #COMMAND}, which rewrites them.
 *
 * <p>{@code java ... ReferenceDocs [repository root]} (default: the working directory).
 */
public final class ReferenceDocs {
  /** The command that regenerates the pages, from the repository's root. */
  public static final String COMMAND = "scripts/reference-docs";

  static final Path DIRECTORY = Path.of("docs", "reference");
  static final String CRD_RESOURCE = "META-INF/fabric8/mysqlfailovergroups.shipstream.io-v1.yml";
  static final Path EVENTS_SOURCE =
      Path.of("workflows/src/main/java/io/shipstream/failover/workflows/contract/Events.java");

  /** The modules whose sources emit Events, and the process each runs in. */
  private static final Map<String, String> EMITTERS = new LinkedHashMap<>();

  static {
    EMITTERS.put("workflows", "worker (workflow)");
    EMITTERS.put("activities", "worker (activity)");
    EMITTERS.put("watcher", "watcher");
    EMITTERS.put("sidecar", "sidecar");
  }

  private static final Pattern EVENT_USE = Pattern.compile("\\bEvents\\.([A-Z][A-Z0-9_]+)\\b");
  private static final Pattern SECTION = Pattern.compile("^\\s*// --- (.+?) -*\\s*$");
  private static final Pattern CONSTANT = Pattern.compile("^\\s*([A-Z][A-Z0-9_]+)\\(");

  private ReferenceDocs() {}

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    Path directory = root.resolve(DIRECTORY);
    Files.createDirectories(directory);
    for (Map.Entry<String, String> page : pages(root).entrySet()) {
      Path file = directory.resolve(page.getKey());
      boolean same = Files.exists(file) && Files.readString(file).equals(page.getValue());
      if (!same) {
        Files.writeString(file, page.getValue());
      }
      System.out.printf("%s %s%n", same ? "unchanged" : "wrote    ", root.relativize(file));
    }
  }

  /** Every page by file name, generated from the catalogues and the sources under {@code root}. */
  public static Map<String, String> pages(Path root) {
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("annotations.md", annotations());
    pages.put("spec-and-status.md", specAndStatus(crd()));
    pages.put("events.md", events(root));
    pages.put("metrics.md", metrics());
    return pages;
  }

  /**
   * What is stale under {@code root}: one line per committed page that is missing or differs from
   * what {@link #pages} generates, naming its first differing line and {@link #COMMAND}; empty when
   * every page is current.
   */
  public static List<String> stale(Path root) {
    List<String> problems = new ArrayList<>();
    pages(root).forEach((name, generated) -> {
      Path file = DIRECTORY.resolve(name);
      if (!Files.exists(root.resolve(file))) {
        problems.add(file + " is missing: run " + COMMAND);
        return;
      }
      List<String> committed = read(root.resolve(file)).lines().toList();
      List<String> wanted = generated.lines().toList();
      for (int i = 0; i < Math.max(committed.size(), wanted.size()); i++) {
        String has = i < committed.size() ? committed.get(i) : "(end of file)";
        String want = i < wanted.size() ? wanted.get(i) : "(end of file)";
        if (!has.equals(want)) {
          problems.add(file + " is stale (generated from the code, never edited by hand): line " + (i + 1)
              + " is\n  " + has + "\nbut the code makes it\n  " + want + "\nRegenerate the pages with " + COMMAND);
          return;
        }
      }
      if (!read(root.resolve(file)).equals(generated)) {
        problems.add(file + " differs in its line endings: run " + COMMAND);
      }
    });
    return problems;
  }

  private static String header(String title, String source) {
    return "<!-- Generated by " + COMMAND + " from " + source + ": do not edit; change the source and run "
        + COMMAND + ". -->\n# " + title + "\n\n"
        + "_Generated from " + source + " by `" + COMMAND + "`; ReferenceDocsTest fails while this page is stale._"
        + "\n\n";
  }

  // --- Annotations ------------------------------------------------------------------------------------

  static String annotations() {
    StringBuilder out = new StringBuilder(header("Annotations", "`model/.../Annotations.java`"));
    out.append("Every `").append(Annotations.PREFIX).append("` key the product reads or writes. Values are read")
        .append(" strictly: one that does not fit the grammar is refused with an Event, never guessed.\n\n");
    out.append("| Key | Kind | On | Value | What it does | Who writes it |\n");
    out.append("|---|---|---|---|---|---|\n");
    for (Annotations.Entry e : Annotations.ALL) {
      out.append(row("`" + e.name() + "`", e.kind(), e.on(), e.grammar(), e.effect(), e.writers()));
    }
    return out.toString();
  }

  // --- Spec and status --------------------------------------------------------------------------------

  static JsonNode crd() {
    try (InputStream in = ReferenceDocs.class.getClassLoader().getResourceAsStream(CRD_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(CRD_RESOURCE + " is not on the classpath: build the model module");
      }
      return new ObjectMapper(new YAMLFactory()).readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String specAndStatus(JsonNode crd) {
    JsonNode version = crd.path("spec").path("versions").path(0);
    JsonNode schema = version.path("schema").path("openAPIV3Schema").path("properties");
    StringBuilder out = new StringBuilder(header("MysqlFailoverGroup spec and status",
        "the CRD schema the model module generates (`helm/failover/crds/`)"));
    out.append("`").append(crd.path("spec").path("group").asText()).append("/").append(version.path("name").asText())
        .append("`, kind `").append(crd.path("spec").path("names").path("kind").asText())
        .append("` (short name `").append(crd.path("spec").path("names").path("shortNames").path(0).asText())
        .append("`). One table per object; a field's path is spelled out from the resource's root, `[]` for the")
        .append(" items of a list, `{}` for the values of a map. The spec is what you write; the status is what")
        .append(" the watcher and the workflows record.\n\n");
    for (String top : List.of("spec", "status")) {
      object(out, top, schema.path(top));
    }
    return out.toString();
  }

  /** Writes the table of one object, then the tables of the objects it holds, depth first. */
  private static void object(StringBuilder out, String path, JsonNode node) {
    out.append("## `").append(path).append("`\n\n");
    if (node.hasNonNull("description")) {
      out.append(text(node.path("description").asText())).append("\n\n");
    }
    List<String> rules = new ArrayList<>();
    node.path("x-kubernetes-validations").forEach(v -> rules.add(v.path("message").asText() + " (`"
        + v.path("rule").asText().replaceAll("\\s+", " ") + "`)"));
    if (!rules.isEmpty()) {
      out.append("Rules: ").append(text(String.join("; ", rules))).append(".\n\n");
    }
    out.append("| Field | Type | Default | Validation | Description |\n|---|---|---|---|---|\n");
    Set<String> required = new TreeSet<>();
    node.path("required").forEach(r -> required.add(r.asText()));
    Map<String, JsonNode> nested = new LinkedHashMap<>();
    new TreeMap<>(fields(node.path("properties"))).forEach((name, field) -> {
      String fieldPath = path + "." + name;
      out.append(row("`" + fieldPath + "`", type(field), field.has("default") ? "`" + field.path("default")
          .toString().replaceAll("^\"|\"$", "") + "`" : "", validation(field, required.contains(name)),
          field.path("description").asText("")));
      JsonNode inner = inner(field);
      if (inner.has("properties")) {
        nested.put(fieldPath + suffix(field), inner);
      }
    });
    out.append("\n");
    nested.forEach((p, n) -> object(out, p, n));
  }

  private static Map<String, JsonNode> fields(JsonNode properties) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    properties.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
    return fields;
  }

  /** The object a field holds: itself, its items, or its map's values. */
  private static JsonNode inner(JsonNode field) {
    if ("array".equals(field.path("type").asText())) {
      return field.path("items");
    }
    if (field.has("additionalProperties") && field.path("additionalProperties").isObject()) {
      return field.path("additionalProperties");
    }
    return field;
  }

  private static String suffix(JsonNode field) {
    if ("array".equals(field.path("type").asText())) {
      return "[]";
    }
    return field.path("additionalProperties").isObject() ? "{}" : "";
  }

  private static String type(JsonNode field) {
    String type = field.path("type").asText("any");
    if ("array".equals(type)) {
      return "list of " + type(field.path("items"));
    }
    if ("object".equals(type) && field.path("additionalProperties").isObject()) {
      return "map of " + type(field.path("additionalProperties"));
    }
    if (field.has("format")) {
      return type + " (" + field.path("format").asText() + ")";
    }
    return type;
  }

  private static String validation(JsonNode field, boolean required) {
    List<String> checks = new ArrayList<>();
    if (required) {
      checks.add("required");
    }
    if (field.has("enum")) {
      List<String> values = new ArrayList<>();
      field.path("enum").forEach(v -> values.add("`" + v.asText() + "`"));
      checks.add("one of " + String.join(", ", values));
    }
    for (String bound : List.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
        "maxLength", "minItems", "maxItems")) {
      if (field.has(bound)) {
        JsonNode value = field.path(bound);
        checks.add(bound + " " + (value.isNumber() && value.asDouble() == Math.rint(value.asDouble())
            ? String.valueOf(value.asLong()) : value.asText()));
      }
    }
    if (field.has("pattern")) {
      checks.add("pattern `" + field.path("pattern").asText() + "`");
    }
    field.path("x-kubernetes-validations").forEach(v -> checks.add(v.path("message").asText()));
    return String.join("; ", checks);
  }

  // --- Events -----------------------------------------------------------------------------------------

  /** What the sources say about one Event beside its constant: its section and its Javadoc. */
  private record EventSource(String section, String javadoc) {}

  static String events(Path root) {
    Map<String, EventSource> sources = eventSources(root.resolve(EVENTS_SOURCE));
    Map<String, Set<String>> emitters = emitters(root);
    StringBuilder out = new StringBuilder(header("Kubernetes Events", "`workflows/.../contract/Events.java`"));
    out.append("Every Event the product writes on a MysqlFailoverGroup (`kubectl describe mfg <name>`,")
        .append(" `kubectl get events --field-selector involvedObject.name=<name>`). The reason is what alerts")
        .append(" and scripts match; the message is its shape for a reader, `<...>` filled in, `[...]` optional,")
        .append(" `|` between alternatives. \"Emitted by\" is the process whose code writes it, found in the")
        .append(" sources.\n\n");
    String section = null;
    for (Events event : Events.values()) {
      EventSource source = sources.get(event.name());
      if (source == null) {
        throw new IllegalStateException(event + " not found in " + EVENTS_SOURCE);
      }
      if (!source.section().equals(section)) {
        section = source.section();
        out.append(section.isEmpty() ? "" : "\n## " + text(section) + "\n\n");
        out.append("| Reason | Type | Emitted by | Message | Notes |\n|---|---|---|---|---|\n");
      }
      Set<String> by = emitters.getOrDefault(event.name(), Set.of());
      out.append(row("`" + event.reason() + "`", event.type().name(), by.isEmpty() ? "" : String.join(", ", by),
          "`" + event.shape() + "`", source.javadoc()));
    }
    return out.toString();
  }

  /** Each constant's section ({@code // --- Section ---}) and Javadoc, read from the enum's source. */
  static Map<String, EventSource> eventSources(Path file) {
    Map<String, EventSource> sources = new LinkedHashMap<>();
    String section = "";
    StringBuilder javadoc = null;
    String pending = "";
    boolean inEnum = false;
    for (String line : read(file).lines().toList()) {
      String trimmed = line.strip();
      if (!inEnum) {
        inEnum = trimmed.startsWith("public enum Events");
        continue;
      }
      Matcher s = SECTION.matcher(line);
      if (s.matches()) {
        section = s.group(1).strip();
      } else if (trimmed.startsWith("/**")) {
        javadoc = new StringBuilder();
        append(javadoc, trimmed.substring(3));
        if (trimmed.endsWith("*/")) {
          pending = close(javadoc);
          javadoc = null;
        }
      } else if (javadoc != null) {
        append(javadoc, trimmed.replaceFirst("^\\*(?!/)", ""));
        if (trimmed.endsWith("*/")) {
          pending = close(javadoc);
          javadoc = null;
        }
      } else {
        Matcher c = CONSTANT.matcher(line);
        if (c.find()) {
          sources.put(c.group(1), new EventSource(section, pending));
          pending = "";
        } else if (trimmed.endsWith(";")) {
          break;
        }
      }
    }
    return sources;
  }

  private static void append(StringBuilder javadoc, String text) {
    String t = text.replace("*/", "").strip();
    if (!t.isEmpty()) {
      javadoc.append(javadoc.isEmpty() ? "" : " ").append(t);
    }
  }

  private static String close(StringBuilder javadoc) {
    return javadoc.toString().replaceAll("\\{@(?:code|literal) ([^}]*)}", "`$1`")
        .replaceAll("\\{@link(?:plain)? ([^}]*)}", "$1");
  }

  /** For each Events constant, the processes whose production sources name it. */
  static Map<String, Set<String>> emitters(Path root) {
    Map<String, Set<String>> emitters = new TreeMap<>();
    EMITTERS.forEach((module, process) -> {
      Path sources = root.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(sources)) {
        return;
      }
      try (Stream<Path> files = Files.walk(sources)) {
        files.filter(f -> f.toString().endsWith(".java") && !f.endsWith(EVENTS_SOURCE.getFileName()))
            .sorted().forEach(f -> EVENT_USE.matcher(read(f)).results()
                .forEach(m -> emitters.computeIfAbsent(m.group(1), k -> new TreeSet<>(
                    (a, b) -> Integer.compare(order(a), order(b)))).add(process)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return emitters;
  }

  private static int order(String process) {
    return new ArrayList<>(EMITTERS.values()).indexOf(process);
  }

  // --- Metrics ----------------------------------------------------------------------------------------

  static String metrics() {
    StringBuilder out = new StringBuilder(header("Prometheus metrics", "`runtime/.../Metric.java`"));
    out.append("Every metric the product's processes serve on `/metrics` (the worker's and the watcher's HTTP")
        .append(" port, each sidecar's), under the name Prometheus shows. A counter's series end in `_total`;")
        .append(" a timer's family `<name>` (in seconds) has the series `<name>_count`, `<name>_sum`,")
        .append(" `<name>_max` and, where it has buckets, `<name>_bucket`. Besides these, each process serves")
        .append(" the JVM's and its own (`jvm_*`, `process_*`, `system_*`), and the worker the Temporal SDK's")
        .append(" (`temporal_*`), of which only those the chart's dashboard reads are listed.\n\n");
    Map<String, List<Metric>> sections = new LinkedHashMap<>();
    for (Metric m : Metric.values()) {
      String section = m.fromTemporalSdk() ? "The Temporal SDK's, in the worker"
          : "The " + m.processes().iterator().next().label();
      sections.computeIfAbsent(section, k -> new ArrayList<>()).add(m);
    }
    sections.forEach((section, metrics) -> {
      out.append("## ").append(section).append("\n\n");
      out.append("| Metric | Type | Labels | Served by | Help |\n|---|---|---|---|---|\n");
      for (Metric m : metrics) {
        out.append(row("`" + m.family() + "`", m.kind().name().toLowerCase(Locale.ROOT),
            m.tags().stream().map(t -> "`" + t + "`").collect(Collectors.joining(", ")),
            m.processes().stream().map(Metric.Process::label).collect(Collectors.joining(", ")), m.help()));
      }
      out.append("\n");
    });
    return out.toString().stripTrailing() + "\n";
  }

  // --- Markdown ---------------------------------------------------------------------------------------

  private static String row(String... cells) {
    return Stream.of(cells).map(ReferenceDocs::cell).collect(Collectors.joining(" | ", "| ", " |\n"));
  }

  /** One table cell: on one line, its pipes escaped, and {@code <} kept as text outside code spans. */
  private static String cell(String text) {
    return text(text).replace("\n", " ").replace("|", "\\|");
  }

  private static String text(String text) {
    String[] parts = text.split("`", -1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      out.append(i > 0 ? "`" : "").append(i % 2 == 0 ? parts[i].replace("<", "&lt;") : parts[i]);
    }
    return out.toString();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
