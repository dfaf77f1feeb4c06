package io.shipstream.failover.worker;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.workflows.TaskQueues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Everything the worker process needs to know, read from environment variables and {@code
 * --flag=value} arguments (a flag wins over the variable of the same name: {@code TASK_QUEUE}
 * is {@code --task-queue}). Every bad value is reported at once, so a broken deployment is fixed
 * in one round rather than one variable per crash loop.
 *
 * <p>Two settings are environment-only on purpose: {@code TEMPORAL_API_KEY}, because a flag is
 * visible in {@code ps} and in the pod spec, and {@code LOG_FORMAT}, because logback reads it
 * before {@code main} runs; it is validated here so a typo fails loudly instead of logging nothing.
 *
 * @param temporalAddress {@code host:port} of the Temporal frontend, or a gRPC target URI
 * @param tls whether to connect with TLS; implied by a client certificate, a CA or an API key
 * @param tlsCert PEM client certificate for mTLS, with {@code tlsKey} (PKCS#8 PEM)
 * @param tlsCa PEM CA bundle that signs the server certificate, when not a public CA
 * @param apiKey Temporal Cloud API key; never logged
 * @param httpPort port of {@code /healthz}, {@code /readyz} and {@code /metrics}; 0 picks a free one
 * @param metricsReportInterval how often the SDK's metrics scope is copied into the registry
 * @param shutdownTimeout how long in-flight activities may run on after SIGTERM
 */
public record WorkerConfig(
    String temporalAddress,
    String namespace,
    String taskQueue,
    boolean tls,
    Path tlsCert,
    Path tlsKey,
    Path tlsCa,
    String apiKey,
    int httpPort,
    Duration metricsReportInterval,
    Duration shutdownTimeout,
    String logFormat) {

  static final String TEMPORAL_ADDRESS = "TEMPORAL_ADDRESS";
  static final String TEMPORAL_NAMESPACE = "TEMPORAL_NAMESPACE";
  static final String TASK_QUEUE = "TASK_QUEUE";
  static final String TEMPORAL_TLS = "TEMPORAL_TLS";
  static final String TEMPORAL_TLS_CERT = "TEMPORAL_TLS_CERT";
  static final String TEMPORAL_TLS_KEY = "TEMPORAL_TLS_KEY";
  static final String TEMPORAL_TLS_CA = "TEMPORAL_TLS_CA";
  static final String TEMPORAL_API_KEY = "TEMPORAL_API_KEY";
  static final String HTTP_PORT = "HTTP_PORT";
  static final String METRICS_REPORT_INTERVAL = "METRICS_REPORT_INTERVAL";
  static final String SHUTDOWN_TIMEOUT = "SHUTDOWN_TIMEOUT";
  static final String LOG_FORMAT = "LOG_FORMAT";

  /** Setting name to default ({@code null}: unset unless given). */
  private static final Map<String, String> DEFAULTS = defaults();
  private static final List<String> ENV_ONLY = List.of(TEMPORAL_API_KEY, LOG_FORMAT);
  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9._-]+):(\\d{1,5})");

  private static Map<String, String> defaults() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put(TEMPORAL_ADDRESS, "127.0.0.1:7233");
    d.put(TEMPORAL_NAMESPACE, "default");
    d.put(TASK_QUEUE, TaskQueues.FAILOVER);
    d.put(TEMPORAL_TLS, null);
    d.put(TEMPORAL_TLS_CERT, null);
    d.put(TEMPORAL_TLS_KEY, null);
    d.put(TEMPORAL_TLS_CA, null);
    d.put(TEMPORAL_API_KEY, null);
    d.put(HTTP_PORT, "9090");
    d.put(METRICS_REPORT_INTERVAL, "10s");
    d.put(SHUTDOWN_TIMEOUT, "30s");
    d.put(LOG_FORMAT, "text");
    return d;
  }

  /** The configuration with every default: a local Temporal on 127.0.0.1:7233, no TLS. */
  public static WorkerConfig defaultConfig() {
    return from(Map.of(), new String[0]);
  }

  /**
   * Reads the known variables from {@code env} (others are ignored: a pod has many) and then the
   * flags; throws {@link IllegalArgumentException} naming every bad or unknown setting.
   */
  public static WorkerConfig from(Map<String, String> env, String[] args) {
    List<String> errors = new ArrayList<>();
    Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
    DEFAULTS.keySet().forEach(name -> {
      String v = env.get(name);
      // An empty variable is what a Helm template renders for an unset value: treat it as unset.
      if (v != null && !v.isBlank()) {
        values.put(name, v.trim());
      }
    });
    for (String arg : args) {
      applyFlag(arg, values, errors);
    }
    return validate(values, errors);
  }

  private static void applyFlag(String arg, Map<String, String> values, List<String> errors) {
    if (!arg.startsWith("--")) {
      errors.add("unexpected argument '" + arg + "': flags look like --task-queue=mysql-failover");
      return;
    }
    int eq = arg.indexOf('=');
    String flag = eq < 0 ? arg : arg.substring(0, eq);
    String name = flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    if (!DEFAULTS.containsKey(name)) {
      errors.add("unknown flag " + flag + "; known flags: " + String.join(", ", flagNames()));
    } else if (ENV_ONLY.contains(name)) {
      errors.add(flag + " is not accepted as a flag: set the environment variable " + name
          + (name.equals(TEMPORAL_API_KEY) ? " from a Secret (a flag is visible in ps and in the pod spec)"
              : " (logging is configured before the flags are read)"));
    } else if (eq < 0) {
      errors.add(flag + " needs a value: " + flag + "=<value>");
    } else {
      values.put(name, arg.substring(eq + 1).trim());
    }
  }

  private static WorkerConfig validate(Map<String, String> v, List<String> errors) {
    String address = required(v, TEMPORAL_ADDRESS, errors);
    if (address != null && !address.contains("://") && !validHostPort(address)) {
      errors.add(TEMPORAL_ADDRESS + "=" + address + ": expected host:port (e.g. temporal-frontend:7233)"
          + " or a gRPC target such as dns:///temporal-frontend:7233");
    }
    String namespace = required(v, TEMPORAL_NAMESPACE, errors);
    if (namespace != null && namespace.chars().anyMatch(Character::isWhitespace)) {
      errors.add(TEMPORAL_NAMESPACE + "='" + namespace + "': a namespace has no spaces");
    }
    String taskQueue = required(v, TASK_QUEUE, errors);
    Path cert = file(v, TEMPORAL_TLS_CERT, errors);
    Path key = file(v, TEMPORAL_TLS_KEY, errors);
    Path ca = file(v, TEMPORAL_TLS_CA, errors);
    String apiKey = v.get(TEMPORAL_API_KEY);
    if ((v.get(TEMPORAL_TLS_CERT) == null) != (v.get(TEMPORAL_TLS_KEY) == null)) {
      errors.add(TEMPORAL_TLS_CERT + " and " + TEMPORAL_TLS_KEY + " go together: mTLS needs both the"
          + " certificate and its private key");
    }
    if (apiKey != null && v.get(TEMPORAL_TLS_CERT) != null) {
      errors.add(TEMPORAL_API_KEY + " and " + TEMPORAL_TLS_CERT + " are both set: authenticate with one of them");
    }
    boolean impliedTls = v.get(TEMPORAL_TLS_CERT) != null || v.get(TEMPORAL_TLS_CA) != null || apiKey != null;
    boolean tls = impliedTls;
    String tlsFlag = v.get(TEMPORAL_TLS);
    if (tlsFlag != null) {
      if (tlsFlag.equalsIgnoreCase("true")) {
        tls = true;
      } else if (tlsFlag.equalsIgnoreCase("false")) {
        tls = false;
        if (impliedTls) {
          errors.add(TEMPORAL_TLS + "=false contradicts " + TEMPORAL_TLS_CERT + "/" + TEMPORAL_TLS_CA + "/"
              + TEMPORAL_API_KEY + ", which need TLS");
        }
      } else {
        errors.add(TEMPORAL_TLS + "=" + tlsFlag + ": expected true or false");
      }
    }
    int httpPort = port(v, errors);
    Duration interval = duration(v, METRICS_REPORT_INTERVAL, errors);
    Duration shutdown = duration(v, SHUTDOWN_TIMEOUT, errors);
    String logFormat = v.get(LOG_FORMAT);
    if (!logFormat.equals("text") && !logFormat.equals("json")) {
      errors.add(LOG_FORMAT + "=" + logFormat + ": expected text or json");
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid worker configuration:\n  - " + String.join("\n  - ", errors));
    }
    return new WorkerConfig(address, namespace, taskQueue, tls, cert, key, ca, apiKey, httpPort, interval, shutdown,
        logFormat);
  }

  private static boolean validHostPort(String address) {
    var m = HOST_PORT.matcher(address);
    if (!m.matches()) {
      return false;
    }
    int port = Integer.parseInt(m.group(2));
    return port >= 1 && port <= 65535;
  }

  private static String required(Map<String, String> v, String name, List<String> errors) {
    String value = v.get(name);
    if (value == null || value.isBlank()) {
      errors.add(name + " must not be empty");
      return null;
    }
    return value;
  }

  private static Path file(Map<String, String> v, String name, List<String> errors) {
    String value = v.get(name);
    if (value == null) {
      return null;
    }
    Path path = Path.of(value);
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      errors.add(name + "=" + value + ": no such readable file");
    }
    return path;
  }

  private static int port(Map<String, String> v, List<String> errors) {
    String value = v.get(HTTP_PORT);
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // Reported below with the same message as an out-of-range number.
    }
    errors.add(HTTP_PORT + "=" + value + ": expected a port number 0..65535 (0 picks a free port)");
    return -1;
  }

  private static Duration duration(Map<String, String> v, String name, List<String> errors) {
    String value = v.get(name);
    try {
      Duration d = Durations.parse(value);
      if (!d.isZero()) {
        return d;
      }
      errors.add(name + "=" + value + ": must be more than zero");
    } catch (IllegalArgumentException e) {
      errors.add(name + "=" + value + ": " + e.getMessage());
    }
    return null;
  }

  private static List<String> flagNames() {
    return DEFAULTS.keySet().stream().filter(n -> !ENV_ONLY.contains(n))
        .map(n -> "--" + n.toLowerCase(Locale.ROOT).replace('_', '-')).toList();
  }

  /** One line per setting, for {@code --help} and for configuration errors. */
  public static String usage() {
    StringBuilder b = new StringBuilder("settings (environment variable, or --flag=value where offered):\n");
    DEFAULTS.forEach((name, def) -> {
      String flag = ENV_ONLY.contains(name) ? "(environment only)"
          : "--" + name.toLowerCase(Locale.ROOT).replace('_', '-');
      b.append(String.format("  %-24s %-28s default: %s%n", name, flag, def == null ? "unset" : def));
    });
    return b.toString();
  }

  public boolean mutualTls() {
    return tlsCert != null;
  }

  /** The API key is replaced by a mask: this string goes to the startup log line. */
  @Override
  public String toString() {
    return "WorkerConfig[temporalAddress=" + temporalAddress + ", namespace=" + namespace + ", taskQueue=" + taskQueue
        + ", tls=" + tls + ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey + ", tlsCa=" + tlsCa
        + ", apiKey=" + (apiKey == null ? "unset" : "****") + ", httpPort=" + httpPort
        + ", metricsReportInterval=" + (metricsReportInterval == null ? null : Durations.format(metricsReportInterval))
        + ", shutdownTimeout=" + (shutdownTimeout == null ? null : Durations.format(shutdownTimeout))
        + ", logFormat=" + logFormat + "]";
  }
}
