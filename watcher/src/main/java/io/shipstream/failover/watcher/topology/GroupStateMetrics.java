package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.runtime.Metric;
import io.shipstream.failover.workflows.contract.Events;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * What the leading watcher concludes about each group, as gauges an alert can match directly,
 * each registered for every value it can take as soon as the group is watched (0 for all but the
 * current one), so a series exists before the first trouble and an alert never waits for one to
 * appear:
 *
 * <pre>
 * | metric                                             | 1 for                                          |
 * |----------------------------------------------------|------------------------------------------------|
 * | bloodraven_group_condition{group,condition,status} | each condition's current status (Ready,        |
 * |                                                    |   Progressing, Degraded, SearchAttributes-     |
 * |                                                    |   Registered; True, False, Unknown until first |
 * |                                                    |   computed)                                    |
 * | bloodraven_topology_verdict{group,verdict}         | the matrix's latest verdict (its type name)    |
 * | bloodraven_failover_blocked{group,cause}           | while an automatic failover is wanted and      |
 * |                                                    |   blocked for that cause                       |
 * | bloodraven_manual_recovery_required{group,cause}   | failover_stopped: the latest failover says     |
 * |                                                    |   "manual recovery required"; divergent_site:  |
 * |                                                    |   a site is held read-only as divergent        |
 * | bloodraven_watcher_warnings_total{group,reason}    | (a counter) Warning Events the watcher wrote   |
 * | bloodraven_semisync_fallen_back{group}             | the primary has fallen back from semi-sync to  |
 * |                                                    |   asynchronous replication (0 while it waits   |
 * |                                                    |   for acknowledgements; NaN: semi-sync off or  |
 * |                                                    |   not read yet)                                |
 * | bloodraven_semisync_acks_per_commit{group}         | (a value) acknowledgements each commit waits   |
 * |                                                    |   for; NaN as above                            |
 * | bloodraven_transactions_lost_confirmed{group,site} | (a value) transactions the group recorded as   |
 * |                                                    |   lost that the site came back holding         |
 * |                                                    |   (status.lostTransactions, summed); 0 for     |
 * |                                                    |   every site of status.sites until then        |
 * | bloodraven_site_ready{group,site,path}             | the site could take over now, path planned (a  |
 * |                                                    |   switchover's target) or emergency (the       |
 * |                                                    |   matrix would promote it): {@link             |
 * |                                                    |   io.shipstream.failover.model.topology.       |
 * |                                                    |   SiteReadiness}; from the group's first       |
 * |                                                    |   evaluation, for every site                   |
 * </pre>
 *
 * <p>A group's meters go when it stops being watched, also when this replica stops leading: only
 * the leader's view counts.
 */
public final class GroupStateMetrics {
  static final List<String> CONDITIONS = List.of(GroupConditions.READY, GroupConditions.PROGRESSING,
      GroupConditions.DEGRADED, GroupConditions.SEARCH_ATTRIBUTES);
  static final List<String> STATUSES = List.of("True", "False", "Unknown");
  static final List<String> VERDICTS = List.of("Healthy", "Degraded", "NoPrimary", "TotalLoss", "FenceNonPromotable",
      "SplitBrain", "Promote", "Blocked");
  static final List<String> RECOVERY_CAUSES = List.of("failover_stopped", "divergent_site");
  /** The phrase the failover workflows end a message with when they stop for a human. */
  static final String MANUAL_RECOVERY = Events.MANUAL_RECOVERY_REQUIRED;
  /** Warning Events the alerts count, registered at 0 so that an increase is seen from the first one. */
  static final List<String> WARNINGS = Stream.of(Events.SPLIT_BRAIN_DETECTED, Events.NO_PRIMARY_DETECTED,
      Events.TOTAL_LOSS_DETECTED, Events.FAILOVER_BLOCKED, Events.EMERGENCY_FAILOVER_STARTED,
      Events.NON_PROMOTABLE_SITE_FENCED, Events.RECOVERY_BLOCKED, Events.TRANSACTIONS_LOST,
      Events.SITE_FENCED_BY_SIDECAR).map(Events::reason).toList();

  private final MeterRegistry registry;

  private static final class Group {
    final Map<String, AtomicReference<String>> conditions = new ConcurrentHashMap<>();
    final AtomicReference<String> verdict = new AtomicReference<>("");
    final AtomicReference<String> blocked = new AtomicReference<>("");
    final Map<String, AtomicReference<Boolean>> recovery = new ConcurrentHashMap<>();
    // Warnings add to it from whichever thread writes the Event.
    final List<Meter> meters = new CopyOnWriteArrayList<>();
    final AtomicReference<Double> semiSyncFallenBack = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> semiSyncWaitCount = new AtomicReference<>(Double.NaN);
    final Map<String, AtomicReference<Double>> lost = new ConcurrentHashMap<>();
    final Map<String, AtomicReference<Double>> ready = new ConcurrentHashMap<>();
  }

  private final Map<GroupRef, Group> groups = new ConcurrentHashMap<>();

  GroupStateMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  private Group group(GroupRef ref) {
    return groups.computeIfAbsent(ref, r -> {
      Group g = new Group();
      String name = r.toString();
      for (String condition : CONDITIONS) {
        AtomicReference<String> status = new AtomicReference<>("Unknown");
        g.conditions.put(condition, status);
        oneHot(registry, g.meters, Metric.GROUP_CONDITION.meterName(),
            Metric.GROUP_CONDITION.help(), status, STATUSES,
            "status", "group", name, "condition", condition);
      }
      oneHot(registry, g.meters, Metric.TOPOLOGY_VERDICT.meterName(),
          Metric.TOPOLOGY_VERDICT.help(), g.verdict, VERDICTS,
          "verdict", "group", name);
      oneHot(registry, g.meters, Metric.FAILOVER_BLOCKED.meterName(),
          Metric.FAILOVER_BLOCKED.help(), g.blocked,
          Stream.of(Verdict.Cause.values()).map(Verdict.Cause::name).toList(), "cause", "group", name);
      for (String cause : RECOVERY_CAUSES) {
        AtomicReference<Boolean> on = new AtomicReference<>(false);
        g.recovery.put(cause, on);
        g.meters.add(Gauge.builder(Metric.MANUAL_RECOVERY_REQUIRED.meterName(), on, x -> x.get() ? 1 : 0)
            .description(Metric.MANUAL_RECOVERY_REQUIRED.help())
            .tags("group", name, "cause", cause)
            .register(registry));
      }
      for (String reason : WARNINGS) {
        g.meters.add(warnings(name, reason));
      }
      g.meters.add(routingRepairs(name));
      g.meters.add(Gauge.builder(Metric.SEMISYNC_FALLEN_BACK.meterName(), g.semiSyncFallenBack, AtomicReference::get)
          .description(Metric.SEMISYNC_FALLEN_BACK.help())
          .tags("group", name)
          .register(registry));
      g.meters.add(Gauge.builder(Metric.SEMISYNC_ACKS_PER_COMMIT.meterName(), g.semiSyncWaitCount, AtomicReference::get)
          .description(Metric.SEMISYNC_ACKS_PER_COMMIT.help())
          .tags("group", name)
          .register(registry));
      return g;
    });
  }

  /**
   * One gauge per value {@code current} can hold, 1 for the value it holds now and 0 for the
   * others, each tagged {@code valueTag=<value>} beside {@code tags}: a series for every value
   * from the start, so an alert matches the one it is for directly.
   */
  static <T> void oneHot(MeterRegistry registry, List<Meter> into, String name, String description,
      AtomicReference<T> current, List<T> values, String valueTag, String... tags) {
    for (T value : values) {
      into.add(Gauge.builder(name, current, c -> value.equals(c.get()) ? 1 : 0)
          .description(description)
          .tags(tags)
          .tag(valueTag, value.toString())
          .register(registry));
    }
  }

  private Counter routingRepairs(String group) {
    return Counter.builder(Metric.ROUTING_REPAIRS.meterName())
        .description(Metric.ROUTING_REPAIRS.help())
        .tags("group", group)
        .register(registry);
  }

  /** Counts the repairs of a group's routing: one per object set right between failovers. */
  void repaired(GroupRef ref, int repairs) {
    group(ref);
    routingRepairs(ref.toString()).increment(repairs);
  }

  private Counter warnings(String group, String reason) {
    return Counter.builder(Metric.WATCHER_WARNINGS.meterName())
        .description(Metric.WATCHER_WARNINGS.help())
        .tags("group", group, "reason", reason)
        .register(registry);
  }

  /** Registers every meter of a group at its starting value. */
  public void watch(GroupRef ref) {
    group(ref);
  }

  void conditions(GroupRef ref, List<Condition> conditions) {
    Group g = group(ref);
    for (Condition c : conditions) {
      AtomicReference<String> status = g.conditions.get(c.getType());
      if (status != null) {
        status.set(STATUSES.contains(c.getStatus()) ? c.getStatus() : "Unknown");
      }
    }
  }

  /** The verdict the monitor acted on, or null when the group was not evaluated by the matrix. */
  public void verdict(GroupRef ref, Verdict verdict) {
    Group g = group(ref);
    g.verdict.set(verdict == null ? "" : verdict.getClass().getSimpleName());
    g.blocked.set(verdict instanceof Verdict.Blocked b ? b.cause().name() : "");
  }

  /** Reads from the status whether the group waits for a human. */
  public void recovery(GroupRef ref, MysqlFailoverGroupStatus status) {
    Group g = group(ref);
    g.recovery.get("failover_stopped").set(status != null && lastFailoverStopped(status));
    g.recovery.get("divergent_site").set(status != null && status.sites() != null
        && status.sites().stream().anyMatch(s -> s.divergentGtid() != null && !s.divergentGtid().isBlank()));
    lostTransactions(ref, g, status);
  }

  /**
   * The transactions recorded lost per site, from the status: it survives a watcher restart, and
   * the record is written once per loss. Every site the status lists has a series from 0.
   */
  private void lostTransactions(GroupRef ref, Group g, MysqlFailoverGroupStatus status) {
    if (status == null) {
      return;
    }
    Map<String, Double> bySite = new java.util.HashMap<>();
    if (status.sites() != null) {
      status.sites().forEach(s -> bySite.put(s.name(), 0.0));
    }
    if (status.lostTransactions() != null) {
      status.lostTransactions().stream().filter(l -> l.site() != null)
          .forEach(l -> bySite.merge(l.site(), l.count() == null ? 0.0 : l.count().doubleValue(), Double::sum));
    }
    bySite.forEach((site, count) -> g.lost.computeIfAbsent(site, s -> {
      AtomicReference<Double> value = new AtomicReference<>(0.0);
      g.meters.add(Gauge.builder(Metric.TRANSACTIONS_LOST_CONFIRMED.meterName(), value, AtomicReference::get)
          .description(Metric.TRANSACTIONS_LOST_CONFIRMED.help())
          .tags("group", ref.toString(), "site", s)
          .register(registry));
      return value;
    }).set(count));
  }

  /** Each site's readiness by path, 1 or 0 ({@code bloodraven_site_ready}); a series per site and path. */
  public void readiness(GroupRef ref, List<SiteReadiness.Readiness> readiness) {
    Group g = group(ref);
    for (SiteReadiness.Readiness r : readiness) {
      ready(ref, g, r.site(), "planned").set(r.plannedReady() ? 1.0 : 0.0);
      ready(ref, g, r.site(), "emergency").set(r.emergencyReady() ? 1.0 : 0.0);
    }
  }

  private AtomicReference<Double> ready(GroupRef ref, Group g, String site, String path) {
    return g.ready.computeIfAbsent(site + "/" + path, k -> {
      AtomicReference<Double> value = new AtomicReference<>(0.0);
      g.meters.add(Gauge.builder(Metric.SITE_READY.meterName(), value, AtomicReference::get)
          .description(Metric.SITE_READY.help())
          .tags("group", ref.toString(), "site", site, "path", path)
          .register(registry));
      return value;
    });
  }

  /** Whether the most recent finished failover, planned or emergency, stopped for manual recovery. */
  static boolean lastFailoverStopped(MysqlFailoverGroupStatus status) {
    var planned = status.plannedFailover();
    var emergency = status.emergencyFailover();
    String plannedEnd = planned == null ? null : planned.completionTime();
    String emergencyEnd = emergency == null ? null : emergency.completionTime();
    boolean emergencyLast = emergencyEnd != null && (plannedEnd == null || emergencyEnd.compareTo(plannedEnd) > 0);
    if (emergencyLast) {
      return "Failed".equals(emergency.phase()) && mentions(emergency.message());
    }
    return planned != null && "Failed".equals(planned.phase()) && mentions(planned.message());
  }

  private static boolean mentions(String message) {
    return message != null && message.contains(MANUAL_RECOVERY);
  }

  /** The primary's semi-sync reading; null: semi-sync is off or the primary could not be read. */
  void semiSync(GroupRef ref, MysqlFailoverGroupStatus.SemiSyncStatus status) {
    Group g = group(ref);
    boolean known = status != null && status.fallenBack() != null;
    g.semiSyncFallenBack.set(known ? (status.fallenBack() ? 1.0 : 0.0) : Double.NaN);
    g.semiSyncWaitCount.set(known && status.waitCount() != null ? status.waitCount().doubleValue() : Double.NaN);
  }

  void warning(GroupRef ref, String reason) {
    Group g = group(ref);
    Counter counter = warnings(ref.toString(), Objects.requireNonNull(reason));
    if (!g.meters.contains(counter)) {
      g.meters.add(counter);
    }
    counter.increment();
  }

  /** Forgets every group: this replica stopped leading, and a group with an invalid spec is not polled. */
  public void forgetAll() {
    List.copyOf(groups.keySet()).forEach(this::forget);
  }

  void forget(GroupRef ref) {
    Group g = groups.remove(ref);
    if (g != null) {
      g.meters.forEach(registry::remove);
    }
  }
}
