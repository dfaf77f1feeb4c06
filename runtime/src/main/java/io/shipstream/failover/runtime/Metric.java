package io.shipstream.failover.runtime;

import static io.shipstream.failover.runtime.Metric.Kind.COUNTER;
import static io.shipstream.failover.runtime.Metric.Kind.GAUGE;
import static io.shipstream.failover.runtime.Metric.Kind.TIMER;
import static io.shipstream.failover.runtime.Metric.Process.SIDECAR;
import static io.shipstream.failover.runtime.Metric.Process.WATCHER;
import static io.shipstream.failover.runtime.Metric.Process.WORKER;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every Prometheus metric the product exposes, declared once: the name the code registers it by,
 * the family Prometheus shows (what the chart's alert rules and dashboard query), its kind, its
 * labels, its help text and the processes that serve it. The meters are created lazily where the
 * values are (the sidecar, the watcher's monitor, the worker's workflows through Temporal's metrics
 * scope), and every one of them takes its name and help from here, so {@code docs/reference/metrics.md}
 * is generated from this list and a meter outside it fails the build (temporal-dev's
 * ReferenceDocsTest and AlertRulesTest). The workflows module cannot see this one (it depends on
 * the model only, to stay free of process plumbing): its names are spelled in {@code FailoverKind}
 * and {@code FailoverMetrics} and checked against this list.
 *
 * <p>The JVM's and the process's own meters ({@code jvm_*}, {@code process_*}, {@code system_*}, bound
 * by {@link ProcessMetrics}) and the Temporal SDK's ({@code temporal_*}) are theirs, not listed but
 * for the SDK's families the chart uses.
 */
public enum Metric {
  // --- The worker: the failover workflows, through Temporal's metrics scope ----------------------
  PLANNED_FAILOVERS("bloodraven_planned_failovers", COUNTER, "bloodraven_planned_failovers_total",
      List.of("target_site", "result"), EnumSet.of(WORKER, WATCHER),
      "Planned failovers that ended, by target site and result (success, rejected, failed_timeout, failed_other);"
          + " the watcher counts as rejected the requests it refused before any workflow started"),
  PLANNED_FAILOVER_DURATION("bloodraven_planned_failover_duration", TIMER,
      "bloodraven_planned_failover_duration_seconds", List.of("target_site"), EnumSet.of(WORKER),
      "Time from the request to Succeeded of the successful planned failovers"),
  PLANNED_FAILOVER_LAG_WAIT("bloodraven_planned_failover_lag_wait", TIMER,
      "bloodraven_planned_failover_lag_wait_seconds", List.of("target_site"), EnumSet.of(WORKER),
      "Time planned failovers spent in WaitingForLag, the source fenced"),
  FAILOVERS("bloodraven_failovers", COUNTER, "bloodraven_failovers_total", List.of("target_site", "result"),
      EnumSet.of(WORKER), "Emergency (automatic) failovers that ended, by target site and result (success, rejected,"
          + " cancelled, failed_other)"),
  FAILOVER_DURATION("bloodraven_failover_duration", TIMER, "bloodraven_failover_duration_seconds",
      List.of("target_site"), EnumSet.of(WORKER),
      "Time from the start to Succeeded of the successful emergency failovers"),
  WRITE_WINDOW("bloodraven_write_window", TIMER, "bloodraven_write_window_seconds", List.of("kind"),
      EnumSet.of(WORKER), "How long writes stopped in each failover whose target became writable, by kind: planned,"
          + " the source's fence to the target writable; emergency, the loss's detection to the candidate writable"),
  DNS_FLIPS("bloodraven_dns_flips", COUNTER, "bloodraven_dns_flips_total", List.of("result"), EnumSet.of(WORKER),
      "DNS flips of a group's hostname to a new primary, planned and emergency, by result"),
  TAINT_OPERATIONS("bloodraven_taint_operations", COUNTER, "bloodraven_taint_operations_total", List.of("result"),
      EnumSet.of(WORKER), "Node taint updates of emergency failovers, by result"),
  DRAGONFLY_PROMOTIONS("bloodraven_dragonfly_promotions", COUNTER, "bloodraven_dragonfly_promotions_total",
      List.of("group", "target_site", "result"), EnumSet.of(WORKER),
      "Session-store promotions of planned failovers, by result (success, failed, skipped)"),

  // --- The watcher: the process and its planned-failover requests --------------------------------
  WATCHER_IS_LEADER("bloodraven_watcher_is_leader", GAUGE, "bloodraven_watcher_is_leader", List.of(),
      EnumSet.of(WATCHER), "1 while this watcher replica holds the Lease and acts on annotations, else 0"),
  WATCHER_WATCHING("bloodraven_watcher_watching", GAUGE, "bloodraven_watcher_watching", List.of(),
      EnumSet.of(WATCHER), "1 while every MysqlFailoverGroup informer has listed and is watching (the watcher is"
          + " ready and serves /active-site), else 0"),
  WATCHER_INFORMER_RESTARTS("bloodraven_watcher_informer_restarts", COUNTER,
      "bloodraven_watcher_informer_restarts_total", List.of(), EnumSet.of(WATCHER),
      "MysqlFailoverGroup informers that stopped and were replaced by a new one"),
  PLANNED_FAILOVER_REQUESTS("bloodraven_planned_failover_requests", COUNTER,
      "bloodraven_planned_failover_requests_total", List.of("outcome"), EnumSet.of(WATCHER),
      "Planned-failover annotations handled, by what became of them"),

  // --- The watcher's topology monitor: per site ---------------------------------------------------
  SITE_STATE("bloodraven_site_state", GAUGE, "bloodraven_site_state", List.of("group", "site", "state"),
      EnumSet.of(WATCHER), "1 for the debounced state the topology monitor sees a site in, else 0"),
  REPLICATION_LAG("bloodraven_replication_lag_seconds", GAUGE, "bloodraven_replication_lag_seconds",
      List.of("group", "site"), EnumSet.of(WATCHER),
      "Seconds_Behind_Source of the site's server as last polled; NaN when not replicating"),
  SERVER_STARTS_READ_ONLY("bloodraven_server_starts_read_only", GAUGE, "bloodraven_server_starts_read_only",
      List.of("group", "site"), EnumSet.of(WATCHER), "1 when the site's sidecar reports its server configured to"
          + " start read-only, 0 when writable, NaN while unknown"),
  POLL_LATENCY("bloodraven_poll_latency_seconds", TIMER, "bloodraven_poll_latency_seconds",
      List.of("group", "site"), EnumSet.of(WATCHER), "How long one topology poll of a site took, answered or not"),
  SIDECAR_CONTROL_PLANE_ERRORS("bloodraven_sidecar_control_plane_errors", COUNTER,
      "bloodraven_sidecar_control_plane_errors_total", List.of("group", "site", "reason"), EnumSet.of(WATCHER),
      "Reads of a sidecar that failed in TLS or on the group's credential, by site and reason"),
  MYSQL_TLS_ERRORS("bloodraven_mysql_tls_errors", COUNTER, "bloodraven_mysql_tls_errors_total",
      List.of("group", "site", "reason"), EnumSet.of(WATCHER),
      "Polls of a site's MySQL server that failed in the TLS handshake, by site and reason"),

  // --- The watcher's topology monitor: the monitor itself -----------------------------------------
  POLL_START_DELAY("bloodraven_poll_start_delay_seconds", TIMER, "bloodraven_poll_start_delay_seconds", List.of(),
      EnumSet.of(WATCHER), "How late a topology poll started after it fell due (waiting for a poll thread)"),
  POLL_THREADS("bloodraven_poll_threads", GAUGE, "bloodraven_poll_threads", List.of(), EnumSet.of(WATCHER),
      "Poll threads of the topology monitor alive now"),
  TOPOLOGY_PASS_FAILURES("bloodraven_topology_pass_failures", COUNTER, "bloodraven_topology_pass_failures_total",
      List.of("stage"), EnumSet.of(WATCHER),
      "Passes of the topology monitor that failed for one group and were given up (the next runs)"),

  // --- The watcher's conclusions about each group -------------------------------------------------
  GROUP_CONDITION("bloodraven_group_condition", GAUGE, "bloodraven_group_condition",
      List.of("group", "condition", "status"), EnumSet.of(WATCHER),
      "1 for the status the watcher computed for the group's condition, else 0"),
  TOPOLOGY_VERDICT("bloodraven_topology_verdict", GAUGE, "bloodraven_topology_verdict", List.of("group", "verdict"),
      EnumSet.of(WATCHER), "1 for the cross-site matrix's latest verdict on the group, else 0"),
  FAILOVER_BLOCKED("bloodraven_failover_blocked", GAUGE, "bloodraven_failover_blocked", List.of("group", "cause"),
      EnumSet.of(WATCHER), "1 while an automatic failover is wanted but blocked for this cause, else 0"),
  MANUAL_RECOVERY_REQUIRED("bloodraven_manual_recovery_required", GAUGE, "bloodraven_manual_recovery_required",
      List.of("group", "cause"), EnumSet.of(WATCHER), "1 while the group waits for a human: a failover stopped for"
          + " manual recovery, or a site held read-only as divergent"),
  WATCHER_WARNINGS("bloodraven_watcher_warnings", COUNTER, "bloodraven_watcher_warnings_total",
      List.of("group", "reason"), EnumSet.of(WATCHER), "Warning Events the watcher wrote about the group, by reason"),
  ROUTING_REPAIRS("bloodraven_routing_repairs", COUNTER, "bloodraven_routing_repairs_total", List.of("group"),
      EnumSet.of(WATCHER),
      "Role labels, Services, DNSEndpoints and taints the watcher set right between failovers"),
  SEMISYNC_FALLEN_BACK("bloodraven_semisync_fallen_back", GAUGE, "bloodraven_semisync_fallen_back", List.of("group"),
      EnumSet.of(WATCHER), "1 while the group's primary has fallen back from semi-synchronous to asynchronous"
          + " replication, 0 while its commits wait for acknowledgements; NaN when semi-sync is off or not read yet"),
  SEMISYNC_ACKS_PER_COMMIT("bloodraven_semisync_acks_per_commit", GAUGE, "bloodraven_semisync_acks_per_commit",
      List.of("group"), EnumSet.of(WATCHER),
      "Replica acknowledgements each commit of the group's primary waits for; NaN as above"),
  TRANSACTIONS_LOST_CONFIRMED("bloodraven_transactions_lost_confirmed", GAUGE,
      "bloodraven_transactions_lost_confirmed", List.of("group", "site"), EnumSet.of(WATCHER),
      "Transactions the group recorded as lost (status.lostTransactions) that the site, an old primary left"
          + " behind by an emergency failover, came back holding"),
  SITE_READY("bloodraven_site_ready", GAUGE, "bloodraven_site_ready", List.of("group", "site", "path"),
      EnumSet.of(WATCHER), "1 while the site could take over now (status.sites[].readiness): as a planned"
          + " switchover's target (path planned), or as the site an emergency failover would promote (path"
          + " emergency), else 0"),

  // --- The sidecar (every series also carries the sidecar's group and site) -----------------------
  SIDECAR_FENCES("bloodraven.sidecar.fences", COUNTER, "bloodraven_sidecar_fences_total",
      List.of("group", "site", "rule"), EnumSet.of(SIDECAR), "MySQL fences by this sidecar, by the rule that fenced"),
  SIDECAR_LAST_CONTACT("bloodraven.sidecar.last.contact.timestamp", GAUGE,
      "bloodraven_sidecar_last_contact_timestamp_seconds", List.of("group", "site", "kind", "endpoint"),
      EnumSet.of(SIDECAR), "When the watcher or a peer last answered this sidecar, in seconds since the epoch"),
  SIDECAR_TLS_ERRORS("bloodraven.sidecar.tls.errors", COUNTER, "bloodraven_sidecar_tls_errors_total",
      List.of("group", "site", "endpoint", "reason"), EnumSet.of(SIDECAR),
      "Requests to the watcher or a peer that failed in TLS, by endpoint and reason"),

  // --- The Temporal SDK's own, which the chart's dashboard reads -----------------------------------
  TEMPORAL_REQUEST_FAILURE("temporal_request_failure", COUNTER, "temporal_request_failure_total",
      List.of("operation", "status_code"), EnumSet.of(WORKER),
      "Temporal SDK: requests to the Temporal frontend that failed, by operation and gRPC status code"),
  TEMPORAL_ACTIVITY_EXECUTION_FAILED("temporal_activity_execution_failed", COUNTER,
      "temporal_activity_execution_failed_total", List.of("activity_type"), EnumSet.of(WORKER),
      "Temporal SDK: activity attempts that failed, by activity type"),
  TEMPORAL_WORKFLOW_TASK_EXECUTION_FAILED("temporal_workflow_task_execution_failed", COUNTER,
      "temporal_workflow_task_execution_failed_total", List.of("workflow_type"), EnumSet.of(WORKER),
      "Temporal SDK: workflow tasks that failed (a non-deterministic change, a bug), by workflow type");

  /** How a metric is kept, as Micrometer registers it. */
  public enum Kind {
    /** Only goes up; Prometheus shows {@code <name>_total}. */
    COUNTER,
    /** A value read when scraped. */
    GAUGE,
    /** Durations: Prometheus shows {@code _count}, {@code _sum}, {@code _max} and, with buckets, {@code _bucket}. */
    TIMER
  }

  /** The process whose {@code /metrics} serves a metric. */
  public enum Process {
    WORKER,
    WATCHER,
    SIDECAR;

    /** The name the documentation uses. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final String meterName;
  private final Kind kind;
  private final String family;
  private final List<String> tags;
  private final Set<Process> processes;
  private final String help;

  Metric(String meterName, Kind kind, String family, List<String> tags, Set<Process> processes, String help) {
    this.meterName = meterName;
    this.kind = kind;
    this.family = family;
    this.tags = tags;
    this.processes = processes;
    this.help = help;
  }

  /** The name the code registers the meter by (Micrometer or Temporal's metrics scope). */
  public String meterName() {
    return meterName;
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The name Prometheus shows: a counter's series ({@code _total}), a gauge's, or the base of a
   * timer's ({@code _seconds}, before {@code _count}, {@code _sum}, {@code _max}, {@code _bucket}).
   */
  public String family() {
    return family;
  }

  /** The labels of its series. */
  public List<String> tags() {
    return tags;
  }

  public Set<Process> processes() {
    return processes;
  }

  /** The HELP text Prometheus shows (the meter's description). */
  public String help() {
    return help;
  }

  /**
   * The base unit to register the meter with so that Prometheus shows {@link #family}: "seconds"
   * for a gauge whose family has the unit its meter name lacks, else null.
   */
  public String baseUnit() {
    String snake = meterName.replace('.', '_');
    return kind == GAUGE && family.endsWith("_seconds") && !snake.endsWith("_seconds") ? "seconds" : null;
  }

  /** Whether the Temporal SDK, not this product, registers it. */
  public boolean fromTemporalSdk() {
    return meterName.startsWith("temporal_");
  }

  /** The series names a query may use of this metric: the family, and a timer's suffixed ones. */
  public List<String> seriesNames() {
    if (kind != TIMER) {
      return List.of(family);
    }
    return List.of(family, family + "_count", family + "_sum", family + "_max", family + "_bucket");
  }

  /** The entry registered by {@code meterName}. */
  public static Optional<Metric> byMeterName(String meterName) {
    return Arrays.stream(values()).filter(m -> m.meterName.equals(meterName)).findFirst();
  }

  /** The entry a query's series name belongs to ({@code bloodraven_failovers_total}, {@code ..._seconds_bucket}). */
  public static Optional<Metric> bySeriesName(String series) {
    return Arrays.stream(values()).filter(m -> m.seriesNames().contains(series)).findFirst();
  }
}
