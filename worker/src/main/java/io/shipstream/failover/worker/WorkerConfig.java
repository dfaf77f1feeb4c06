package io.shipstream.failover.worker;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.runtime.ConfigReader;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.Logging;
import io.shipstream.failover.runtime.Setting;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.temporal.TemporalSettings;
import io.shipstream.failover.workflows.TaskQueues;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything the worker process needs to know, read from environment variables and {@code
 * --flag=value} arguments by the runtime module's {@link ConfigReader} (a flag wins over the
 * variable of the same name: {@code TASK_QUEUE} is {@code --task-queue}). Every bad value is
 * reported at once.
 *
 * <p>Three settings are environment-only on purpose: {@code TEMPORAL_API_KEY} and {@code
 * AUTH_TOKEN}, because a flag is visible in {@code ps} and in the pod spec, and {@code LOG_FORMAT},
 * because logback reads it before {@code main} runs; it is validated here so a typo fails loudly
 * instead of logging nothing.
 *
 * @param temporalAddress {@code host:port} of the Temporal frontend, or a gRPC target URI
 * @param tls whether to connect with TLS; implied by a client certificate, a CA or an API key
 * @param tlsCert PEM client certificate for mTLS, with {@code tlsKey} (PKCS#8 PEM)
 * @param tlsCa PEM CA bundle that signs the server certificate, when not a public CA
 * @param apiKey Temporal Cloud API key; never logged
 * @param httpPort port of {@code /healthz}, {@code /readyz} and {@code /metrics}; 0 picks a free one
 * @param metricsReportInterval how often the SDK's metrics scope is copied into the registry
 * @param shutdownTimeout how long in-flight activities may run on after SIGTERM
 * @param sidecarToken the sidecars' shared token (AUTH_TOKEN_FILE, or AUTH_TOKEN from the
 *     environment only), which the sidecar activity presents to {@code POST /tick} and {@code GET
 *     /status}; null when unset, which {@link WorkerApp#main} refuses (embedders without sidecars
 *     may leave it out)
 * @param sidecarTls the CA the sidecars' and the watcher's https URLs are verified with
 * @param watcherPods where the watcher's replicas are (WATCHER_POD_SELECTOR, WATCHER_NAMESPACE,
 *     WATCHER_TLS_NAME), read by an emergency failover to count its wait for an unconfirmed old
 *     primary from its lease's last renewal; null when unset, and the wait counts from the naming
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
    String logFormat,
    SharedToken sidecarToken,
    ControlPlaneTls sidecarTls,
    WatcherPods watcherPods) {

  /** The watcher's pods: a label selector (equality only), their namespace, and the name their certificate carries (null: http). */
  public record WatcherPods(String selector, String namespace, String tlsName) {}

  public WorkerConfig {
    sidecarTls = sidecarTls == null ? ControlPlaneTls.none() : sidecarTls;
  }

  /** TLS_CA_FILE: the CA the sidecars' https URLs are verified with; the worker serves no HTTPS. */
  static final String SIDECAR_CA = ControlPlaneTls.TLS_CA_FILE;

  static final String TASK_QUEUE = "TASK_QUEUE";
  static final String HTTP_PORT = "HTTP_PORT";
  static final String METRICS_REPORT_INTERVAL = "METRICS_REPORT_INTERVAL";
  static final String SHUTDOWN_TIMEOUT = "SHUTDOWN_TIMEOUT";
  static final String WATCHER_POD_SELECTOR = "WATCHER_POD_SELECTOR";
  static final String WATCHER_NAMESPACE = "WATCHER_NAMESPACE";
  static final String WATCHER_TLS_NAME = "WATCHER_TLS_NAME";

  private static final List<Setting> SETTINGS = settings();

  private static List<Setting> settings() {
    List<Setting> s = new ArrayList<>(TemporalSettings.ADDRESS_SETTINGS);
    s.add(Setting.of(TASK_QUEUE, TaskQueues.FAILOVER));
    s.addAll(TemporalSettings.SECURITY_SETTINGS);
    s.add(Setting.of(HTTP_PORT, "9090"));
    s.add(Setting.of(METRICS_REPORT_INTERVAL, "10s"));
    s.add(Setting.of(SHUTDOWN_TIMEOUT, "30s"));
    s.addAll(SharedToken.SETTINGS);
    s.add(Setting.of(SIDECAR_CA, null));
    s.add(Setting.of(WATCHER_POD_SELECTOR, null));
    s.add(Setting.of(WATCHER_NAMESPACE, null));
    s.add(Setting.of(WATCHER_TLS_NAME, null));
    s.add(Logging.LOG_FORMAT_SETTING);
    return List.copyOf(s);
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
    ConfigReader r = ConfigReader.read("worker", SETTINGS, env, args);
    TemporalSettings temporal = TemporalSettings.read(r);
    String taskQueue = r.required(TASK_QUEUE);
    int httpPort = r.port(HTTP_PORT);
    Duration interval = r.parse(METRICS_REPORT_INTERVAL, WorkerConfig::positive);
    Duration shutdown = r.parse(SHUTDOWN_TIMEOUT, WorkerConfig::positive);
    String logFormat = Logging.format(r);
    SharedToken token = SharedToken.read(r);
    java.nio.file.Path sidecarCa = r.file(SIDECAR_CA);
    ControlPlaneTls sidecarTls = ControlPlaneTls.none();
    if (sidecarCa != null && r.errors().isEmpty()) {
      try {
        sidecarTls = ControlPlaneTls.of(null, null, sidecarCa);
      } catch (RuntimeException e) {
        r.error(SIDECAR_CA + ": " + e.getMessage());
      }
    }
    WatcherPods watcherPods = null;
    String selector = r.get(WATCHER_POD_SELECTOR);
    if (selector != null && !selector.isBlank()) {
      try {
        io.shipstream.failover.activities.sidecar.PodWatcherReplicas.labels(selector);
      } catch (IllegalArgumentException e) {
        r.error(WATCHER_POD_SELECTOR + ": " + e.getMessage());
      }
      String namespace = r.get(WATCHER_NAMESPACE);
      if (namespace == null || namespace.isBlank()) {
        r.error(WATCHER_NAMESPACE + " is required with " + WATCHER_POD_SELECTOR);
      }
      watcherPods = new WatcherPods(selector, namespace, r.get(WATCHER_TLS_NAME));
    }
    r.check();
    return new WorkerConfig(temporal.address(), temporal.namespace(), taskQueue, temporal.tls(), temporal.tlsCert(),
        temporal.tlsKey(), temporal.tlsCa(), temporal.apiKey(), httpPort, interval, shutdown, logFormat, token,
        sidecarTls, watcherPods);
  }

  private static Duration positive(String value) {
    Duration d = Durations.parse(value);
    if (d.isZero()) {
      throw new IllegalArgumentException("must be more than zero");
    }
    return d;
  }

  /** One line per setting, for {@code --help} and for configuration errors. */
  public static String usage() {
    return ConfigReader.usage(SETTINGS);
  }

  /** The Temporal part, as the runtime module's connection code takes it. */
  public TemporalSettings temporal() {
    return new TemporalSettings(temporalAddress, namespace, tls, tlsCert, tlsKey, tlsCa, apiKey);
  }

  public boolean mutualTls() {
    return tlsCert != null;
  }

  /** The API key and the sidecar token are replaced by masks: this string goes to the startup log line. */
  @Override
  public String toString() {
    return "WorkerConfig[temporalAddress=" + temporalAddress + ", namespace=" + namespace + ", taskQueue=" + taskQueue
        + ", tls=" + tls + ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey + ", tlsCa=" + tlsCa
        + ", apiKey=" + (apiKey == null ? "unset" : "****") + ", httpPort=" + httpPort
        + ", metricsReportInterval=" + (metricsReportInterval == null ? null : Durations.format(metricsReportInterval))
        + ", shutdownTimeout=" + (shutdownTimeout == null ? null : Durations.format(shutdownTimeout))
        + ", logFormat=" + logFormat + ", sidecarToken=" + (sidecarToken == null ? "unset" : "****")
        + ", watcherPods=" + watcherPods + "]";
  }
}
