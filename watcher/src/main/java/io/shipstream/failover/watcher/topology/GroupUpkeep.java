package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leading watcher keeps true about a group between failovers, beside the matrix's
 * reactions: it adopts a group that has never recorded an active site (see {@link Adoption}),
 * reports an invalid spec, and writes the group's conditions (see {@link GroupConditions}). Every
 * Event is written once per change of what it says, not once per poll.
 */
public final class GroupUpkeep implements Duties.Upkeep {
  private static final Logger log = LoggerFactory.getLogger(GroupUpkeep.class);

  /** Writes {@code status.conditions} and {@code status.observedGeneration}. */
  public interface ConditionWriter {
    void write(GroupRef group, List<Condition> conditions, Long generation);
  }

  private final GroupEffects effects;
  private final ConditionWriter conditions;
  private final Clock clock;
  private final RoutingRepair routing;
  private final TopologyMetrics metrics;
  private final Map<GroupRef, String> lastNote = new ConcurrentHashMap<>();
  private final Map<GroupRef, String> lastSearchAttributes = new ConcurrentHashMap<>();
  private final Map<GroupRef, String> lastReplicationStopped = new ConcurrentHashMap<>();
  /** The namespace's failover search attributes, for their condition; null: not checked (Unknown). */
  private volatile Supplier<GroupConditions.SearchAttributeCheck> searchAttributes;

  /** @param routing null: routing is left to the failovers alone (tests of the other duties) */
  public GroupUpkeep(GroupEffects effects, ConditionWriter conditions, Clock clock, RoutingRepair routing,
      TopologyMetrics metrics) {
    this.effects = effects;
    this.conditions = conditions;
    this.clock = clock;
    this.routing = routing;
    this.metrics = metrics;
  }

  /** The watcher's wiring: routing kept right through {@code client}. */
  public static GroupUpkeep of(GroupEffects effects, ConditionWriter conditions, Clock clock,
      io.fabric8.kubernetes.client.KubernetesClient client,
      java.util.function.Function<GroupRef, Optional<MysqlFailoverGroup>> groups, TopologyMetrics metrics) {
    return new GroupUpkeep(effects, conditions, clock, new RoutingRepair(client, groups), metrics);
  }

  private volatile SemiSyncKeeper semiSync;

  /**
   * Keeps the servers' semi-synchronous settings as {@code spec.semiSync} says, through
   * {@code sites}, writing {@code status.semiSync} through {@code writer} (see {@link SemiSyncKeeper}).
   */
  public GroupUpkeep semiSync(SiteConnector sites,
      java.util.function.BiConsumer<GroupRef, MysqlFailoverGroupStatus.SemiSyncStatus> writer) {
    this.semiSync = new SemiSyncKeeper(sites, effects, writer, metrics, clock);
    return this;
  }

  /** One semi-sync pass (see {@link SemiSyncKeeper}); the Degraded problem of a primary fallen back, if any. */
  public Optional<GroupConditions.Problem> keepSemiSync(GroupMemory memory, GroupRef ref, GroupConfig config,
      MysqlFailoverGroupStatus status,
      Map<String, SiteObservation> observations) {
    SemiSyncKeeper keeper = semiSync;
    if (keeper == null) {
      return Optional.empty();
    }
    try {
      return keeper.keep(memory.semiSync, ref, config, status, observations,
          () -> failoverRunning(status) || effects.failoverRunning(ref));
    } catch (RuntimeException e) {
      log.warn("{}: semi-sync pass failed: {}", ref, e.toString());
      return Optional.empty();
    }
  }

  /** Checks the Temporal namespace's failover search attributes for every group's SearchAttributesRegistered. */
  public GroupUpkeep searchAttributes(Supplier<GroupConditions.SearchAttributeCheck> check) {
    this.searchAttributes = check;
    return this;
  }

  /**
   * Sets the group's routing right, at most once per poll interval, and only while no failover
   * workflow runs (one then owns routing alone: asked of Temporal, not only of the status, which
   * may lag). Returns what could not be set right, for the conditions; an empty list otherwise.
   */
  public List<String> keepRouting(GroupMemory memory, GroupRef ref, GroupConfig config,
      MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations) {
    java.time.Instant now = clock.instant();
    java.time.Instant last = memory.routedAt;
    if (routing == null || status.activeSite() == null || failoverRunning(status)
        || last != null && now.isBefore(last.plus(config.pollInterval()))) {
      return memory.routingProblems;
    }
    memory.routedAt = now;
    try {
      if (effects.failoverRunning(ref)) {
        return memory.routingProblems;
      }
      RoutingRepair.Outcome outcome = routing.repair(ref, config, status.activeSite(), status.fencedSites(),
          observations);
      if (outcome.repaired()) {
        log.info("{}: routing repaired: {}", ref, outcome.repairs());
        if (metrics != null) {
          metrics.repaired(ref, outcome.repairs().size());
        }
        try {
          effects.event(ref, Events.ROUTING_REPAIRED.type().name(), Events.ROUTING_REPAIRED.reason(),
              String.join("; ", outcome.repairs()));
        } catch (RuntimeException e) {
          log.warn("{}: cannot write the RoutingRepaired Event: {}", ref, e.toString());
        }
      }
      if (!outcome.problems().isEmpty()) {
        note(ref, Events.ROUTING_INCOMPLETE, String.join("; ", outcome.problems()));
      }
      memory.routingProblems = outcome.problems();
      return outcome.problems();
    } catch (RuntimeException e) {
      // The next pass tries again; the API server may be briefly away.
      log.warn("{}: routing repair failed: {}", ref, e.toString());
      if (metrics != null) {
        metrics.passFailed(ref, "routing");
      }
      return memory.routingProblems;
    }
  }

  /** Whether the group has ever recorded an active site: before that, the matrix must not act. */
  public static boolean adopted(MysqlFailoverGroupStatus status) {
    return !Adoption.neverActive(status);
  }

  /**
   * Adopts the group when its primary is unambiguous, or when a human named it with the adopt
   * annotation; otherwise says what a human must decide. Returns the decision, for the conditions.
   */
  public Adoption.Decision adopt(GroupRef ref, GroupConfig config, MysqlFailoverGroup group,
      Map<String, SiteObservation> observations) {
    Map<String, Adoption.Seen> latest = seen(observations);
    String named = group.annotation(Adoption.ANNOTATION);
    Adoption.Decision decision;
    if (named != null) {
      String refused = Adoption.named(config, named, latest);
      decision = refused == null ? new Adoption.Adopt(named.strip(), "named by the " + Adoption.ANNOTATION
          + " annotation") : new Adoption.Ambiguous(Reason.InvalidAnnotation.name(), refused);
    } else {
      decision = Adoption.decide(config, latest);
    }
    if (decision instanceof Adoption.Adopt a) {
      effects.recordActiveSite(ref, a.site());
      log.info("{}: adopted with {} as the active site: {}", ref, a.site(), a.reason());
      note(ref, Events.GROUP_ADOPTED, a.site() + " is the active site: " + a.reason());
    } else if (decision instanceof Adoption.Ambiguous a) {
      note(ref, Events.ADOPTION_BLOCKED, a.cause() + ": " + a.reason() + "; nothing is fenced, promoted or "
          + "relabelled until a human names the primary: kubectl annotate mysqlfailovergroup " + ref.name() + " "
          + Adoption.ANNOTATION + "=<site>");
    }
    return decision;
  }

  /** The spec cannot be acted on: Ready=False, an Event, and nothing else touched. */
  public void invalidSpec(GroupRef ref, MysqlFailoverGroup group, List<String> problems) {
    String message = String.join("; ", problems);
    note(ref, Events.INVALID_SPEC, message);
    if (group.statusUnreadable()) {
      // The conditions are computed against the stored ones, which cannot be read: writing them
      // would change the resource, hence fire another change, on every pass. The Event says it.
      return;
    }
    MysqlFailoverGroupStatus status = group.getStatus();
    conditions(ref, group, new GroupConditions.Facts(message, status == null ? null : status.activeSite(), null,
        failoverRunning(status), null, List.of()));
  }

  /**
   * A site's server refused the watcher's TLS handshake ({@link TlsProblems}): a Warning Event and
   * {@code Degraded} with reason {@code TlsError} naming each site; nothing else is changed.
   */
  public void tlsErrors(GroupRef ref, MysqlFailoverGroup group, List<String> problems) {
    note(ref, Events.TLS_ERROR, String.join("; ", problems));
    if (group.statusUnreadable()) {
      return;
    }
    MysqlFailoverGroupStatus status = group.getStatus();
    conditions(ref, group, new GroupConditions.Facts(null, status == null ? null : status.activeSite(), null,
        failoverRunning(status), null, problems.stream()
            .map(p -> new GroupConditions.Problem(Events.TLS_ERROR.reason(), p, true)).toList()));
  }

  /** Writes the conditions when they say something new. */
  public void conditions(GroupRef ref, MysqlFailoverGroup group, GroupConditions.Facts facts) {
    conditions(ref, group, facts, facts.failoverRunning());
  }

  /**
   * As above; with {@code runOwnsStatus} (a failover's workflow owns the status, as the monitor's
   * {@code SiteStatusWrites#runOwnsStatus} says) only a change of what the conditions say about the run is written.
   */
  public void conditions(GroupRef ref, MysqlFailoverGroup group, GroupConditions.Facts facts, boolean runOwnsStatus) {
    MysqlFailoverGroupStatus status = group.getStatus();
    // What the resource holds, not what was last written: a status another writer replaced is written again.
    List<Condition> previous = status == null || status.conditions() == null ? List.of() : status.conditions();
    Long generation = group.getMetadata().getGeneration();
    Supplier<GroupConditions.SearchAttributeCheck> check = searchAttributes;
    if (check != null) {
      facts = facts.withSearchAttributes(check.get());
    }
    List<Condition> next = GroupConditions.compute(facts, previous, clock.instant(), generation);
    noteSearchAttributes(ref, previous, next);
    noteReplicationStopped(ref, previous, facts.problems());
    if (metrics != null) {
      metrics.state().conditions(ref, next);
    }
    if (GroupConditions.sameExceptTimes(previous, next)) {
      return;
    }
    if (runOwnsStatus && GroupConditions.sameRunConditions(previous, next)) {
      // A failover's workflow owns the status while it runs (see the monitor's SiteStatusWrites#write): only
      // the news that it runs (Ready=False, Progressing=True) is written then; whatever else changed
      // is written on the first evaluation after its terminal phase, which computes it again.
      return;
    }
    try {
      conditions.write(ref, next, generation);
    } catch (RuntimeException e) {
      // The next evaluation tries again.
      log.warn("{}: cannot write the conditions: {}", ref, e.toString());
    }
  }

  /**
   * One Event when the SearchAttributesRegistered condition changes: a Warning when it turns False
   * (or names other attributes), a Normal one when it turns True after being False. Unknown (the
   * server cannot list them) and a first True say nothing: a healthy start is no news.
   */
  private void noteSearchAttributes(GroupRef ref, List<Condition> previous, List<Condition> next) {
    Condition now = find(next, GroupConditions.SEARCH_ATTRIBUTES);
    if (now == null) {
      return;
    }
    String key = now.getStatus() + ":" + now.getMessage();
    String before = lastSearchAttributes.put(ref, key);
    if (before == null) {
      Condition stored = find(previous, GroupConditions.SEARCH_ATTRIBUTES);
      before = stored == null ? null : stored.getStatus() + ":" + stored.getMessage();
    }
    if (key.equals(before)) {
      return;
    }
    Events event = "False".equals(now.getStatus()) ? Events.SEARCH_ATTRIBUTES_MISSING
        : "True".equals(now.getStatus()) && before != null && before.startsWith("False:")
            ? Events.SEARCH_ATTRIBUTES_PRESENT : null;
    if (event == null) {
      return;
    }
    effects.eventOrLog(ref, event, now.getMessage());
  }

  /**
   * One ReplicationStopped Warning per change of what a human stopped, not one per pass: none when
   * the stored Degraded condition already says it (so neither a watcher restart, a leader change
   * nor a spec edit repeats it), nor when this process already told it and the write is pending.
   */
  private void noteReplicationStopped(GroupRef ref, List<Condition> previous, List<GroupConditions.Problem> problems) {
    String message = problems.stream().filter(p -> Events.REPLICATION_STOPPED.reason().equals(p.reason()))
        .map(GroupConditions.Problem::message).findFirst().orElse(null);
    if (message == null) {
      lastReplicationStopped.remove(ref);
      return;
    }
    Condition stored = find(previous, GroupConditions.DEGRADED);
    boolean told = stored != null && stored.getMessage() != null && stored.getMessage().contains(message);
    String before = lastReplicationStopped.put(ref, message);
    if (told || message.equals(before)) {
      return;
    }
    effects.eventOrLog(ref, Events.REPLICATION_STOPPED, message);
  }

  private static Condition find(List<Condition> conditions, String type) {
    return conditions == null ? null
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /**
   * A failover workflow holds the group: its status shows a planned or emergency failover not yet
   * finished. A planned one that only waits (Scheduled, Deferred: {@link Phase#isWaiting}) does not
   * count: it has touched nothing, and may wait for days.
   */
  public static boolean failoverRunning(MysqlFailoverGroupStatus status) {
    if (status == null) {
      return false;
    }
    String planned = status.plannedFailover() == null ? null : status.plannedFailover().phase();
    String emergency = status.emergencyFailover() == null ? null : status.emergencyFailover().phase();
    return planned != null && !Phase.isTerminal(planned) && !Phase.isWaiting(planned)
        || emergency != null && !Phase.isTerminal(emergency);
  }

  /**
   * A planned failover past its waiting holds the group's workflow id, so an emergency start would
   * be refused: the topology matrix's {@code failoverRunning} (row 14, FailoverBlocked). An
   * emergency failover that runs is left out: it is the one the matrix would start, and a second
   * start of it being refused is no news (it would be a FailoverBlocked Warning about our own run).
   */
  public static boolean plannedFailoverHolds(MysqlFailoverGroupStatus status) {
    String planned = status == null || status.plannedFailover() == null ? null : status.plannedFailover().phase();
    return planned != null && !Phase.isTerminal(planned) && !Phase.isWaiting(planned);
  }

  /**
   * Whether a failover's workflow runs for the group (asked of Temporal; a planned one that only
   * waits does not count). A Temporal outage answers true: the caller holds back, and asks again.
   */
  public boolean runConfirmed(GroupRef ref) {
    try {
      return effects.failoverRunning(ref);
    } catch (RuntimeException e) {
      log.warn("{}: cannot ask Temporal whether a failover runs: {}", ref, e.toString());
      return true;
    }
  }

  /** Whether each replica acknowledged semi-sync commits at the last pass ({@link SemiSyncKeeper#acking}). */
  public Map<String, Boolean> semiSyncAcking(GroupMemory memory) {
    return semiSync == null ? Map.of() : SemiSyncKeeper.acking(memory.semiSync);
  }

  public void forget(GroupRef ref) {
    lastNote.remove(ref);
    lastSearchAttributes.remove(ref);
    lastReplicationStopped.remove(ref);
  }

  private void note(GroupRef ref, Events event, String message) {
    String type = event.type().name();
    String reason = event.reason();
    String key = reason + ":" + message;
    if (key.equals(lastNote.put(ref, key))) {
      return;
    }
    try {
      effects.event(ref, type, reason, message);
    } catch (RuntimeException e) {
      log.warn("{}: cannot write the {} Event: {}", ref, reason, e.toString());
    }
  }

  /** The latest poll of each polled site, with the site its server replicates from when that is another site. */
  static Map<String, Adoption.Seen> seen(Map<String, SiteObservation> observations) {
    Map<String, String> siteByServerId = new LinkedHashMap<>();
    observations.forEach((site, o) -> {
      if (o.lastReachable() != null && o.lastReachable().serverId() != null) {
        siteByServerId.put(o.lastReachable().serverId(), site);
      }
    });
    Map<String, Adoption.Seen> out = new LinkedHashMap<>();
    observations.forEach((site, o) -> {
      Probe p = o.latest();
      if (p != null) {
        String from = p.sourceServerId() == null ? null : siteByServerId.get(p.sourceServerId());
        // A configured source that is no site of the group still counts: the server replicates from somebody.
        out.put(site,
            new Adoption.Seen(p, from == null && p.sourceServerId() != null ? "?" + p.sourceServerId() : from));
      }
    });
    return out;
  }
}
