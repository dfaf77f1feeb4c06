package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.NodeTaints;
import io.shipstream.failover.kube.RoutingOrphans;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.model.topology.GroupDeletion.Run;
import io.shipstream.failover.model.topology.GroupDeletion.Step;
import io.shipstream.failover.watcher.groups.GroupChanges;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The finalizer {@value GroupDeletion#FINALIZER}: deleting a group must never cut the application
 * off, nor leave the group's taints on the nodes. Runs on the leading watcher only, one group at a
 * time on a thread of its own, and decides each step with {@link GroupDeletion}:
 *
 * <ol>
 *   <li>Every live group gets the finalizer (and any tombstone of an earlier group of its name goes).
 *   <li>A group being deleted while its failover runs: before Promoting the run is asked to cancel
 *       (its rollback puts back what it changed), from Promoting on it is waited for; either way
 *       the finalizer looks again until it has ended.
 *   <li>Once no failover runs, under the starter's lock (no failover of this watcher begins
 *       meanwhile): the group's taint goes from the nodes ({@link NodeTaints}), the routing it
 *       created stays, released from its ownerReference so that the API server's garbage collector
 *       leaves it ({@link RoutingOrphans}), the tombstone is written ({@link Tombstones}), and the
 *       finalizer is removed, which lets the API server delete the group.
 * </ol>
 *
 * <p>Every step is idempotent and read afresh, so a watcher restarted or a new leader half-way
 * simply does the rest: the informer hands the new leader every group, the deleting ones included.
 * A step that fails leaves the finalizer, says why (a GroupDeletionBlocked Event and a log line,
 * once per cause) and is tried again with a backoff; nothing here throws into the informer.
 */
public final class GroupFinalizer implements GroupChanges, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupFinalizer.class);
  /** How soon a deletion waiting for a failover looks again; the workflow's status writes wake it sooner. */
  static final Duration RECHECK = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** The run state as Temporal gives it, and why it could not when it could not. */
  record RunLookup(Run run, FailoverRuns.Running running, String problem) {
    String runId() {
      return running == null ? null : running.runId();
    }
  }

  /** How long the run's own answer about its phase is waited for. */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

  private final KubernetesClient client;
  private final FailoverStarter starter;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  /** Every group the watcher sees, for the groups of the same name in other namespaces. */
  private final Supplier<List<GroupRef>> watched;
  private final Clock clock;
  private final NodeTaints taints;
  private final RoutingOrphans orphans;
  private final Tombstones tombstones;
  private final FinalizerPatches patches;
  private final HandlerQueue queue = new HandlerQueue("group-finalizer");
  /** Per group being deleted: the run this watcher asked to cancel. */
  private final Map<GroupRef, String> cancelled = new ConcurrentHashMap<>();
  /** Per group: the last thing said (Event and log), so that each is said once. */
  private final Map<GroupRef, String> said = new ConcurrentHashMap<>();
  private final Map<GroupRef, Long> backoff = new ConcurrentHashMap<>();
  private final Map<GroupRef, Boolean> due = new ConcurrentHashMap<>();

  public GroupFinalizer(KubernetesClient client, FailoverStarter starter,
      Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Supplier<List<GroupRef>> watched, Clock clock) {
    this.client = client;
    this.starter = starter;
    this.latest = latest;
    this.watched = watched;
    this.clock = clock;
    this.taints = new NodeTaints(client);
    this.orphans = new RoutingOrphans(client);
    this.tombstones = new Tombstones(client);
    this.patches = new FinalizerPatches(client);
  }

  @Override
  public void changed(GroupRef ref) {
    submit(ref, 0);
  }

  @Override
  public void deleted(GroupRef ref) {
    cancelled.remove(ref);
    said.remove(ref);
    backoff.remove(ref);
  }

  private void submit(GroupRef ref, long delayMillis) {
    if (delayMillis > 0 && due.putIfAbsent(ref, Boolean.TRUE) != null) {
      return;
    }
    queue.schedule(() -> {
      if (delayMillis > 0) {
        due.remove(ref);
      }
      handle(ref);
    }, delayMillis);
  }

  /** One step for one group; never throws. Visible for tests. */
  void handle(GroupRef ref) {
    Optional<MysqlFailoverGroup> current = latest.apply(ref);
    if (current.isEmpty()) {
      return;
    }
    MysqlFailoverGroup group = current.get();
    boolean deleting = GroupDeletion.deleting(group);
    boolean finalizer = GroupDeletion.hasFinalizer(group);
    try {
      if (!deleting || !finalizer) {
        // No Temporal call for a group that is not being finalized: every status write lands here.
        if (GroupDeletion.decide(deleting, finalizer, Run.NONE, false, null, false) == Step.ADD_FINALIZER) {
          addFinalizer(ref);
        }
        return;
      }
      RunLookup run = lookUp(ref);
      // The run's own word on its phase first: the status lags it while the application's writes
      // are stopped. Either way the workflow itself refuses a cancel from Promoting on.
      Phase phase = run.running() == null ? null : starter.runs().queryPhase(ref, run.running(), QUERY_TIMEOUT)
          .flatMap(Phase::named).orElseGet(() -> GroupDeletion.phaseOf(group.getStatus(), run.runId()));
      boolean emergency = run.running() != null
          && WorkflowTypes.EMERGENCY_FAILOVER.equals(run.running().workflowType());
      Step step = GroupDeletion.decide(true, true, run.run(), emergency, phase,
          run.runId() != null && run.runId().equals(cancelled.get(ref)));
      String phaseText = phase == null ? "phase not recorded yet" : phase.name();
      switch (step) {
        case HOLD -> blocked(ref, group, "it cannot be told whether a failover runs for the group (Temporal: "
            + run.problem() + "): the taints are not removed under a failover that may re-apply them");
        case CANCEL -> {
          starter.cancel(ref, run.runId(), "the group is being deleted");
          cancelled.put(ref, run.runId());
          say(ref, group, Events.GROUP_DELETION_WAITING, "the group is being deleted: asked the failover "
              + run.runId() + " (" + phaseText + ") to cancel and roll back; the taints are removed and the routing "
              + "released once it has ended");
          submit(ref, RECHECK.toMillis());
        }
        case WAIT -> {
          say(ref, group, Events.GROUP_DELETION_WAITING, "the group is being deleted: waiting for the failover "
              + run.runId() + " (" + phaseText + ") to end" + (run.runId().equals(cancelled.get(ref))
                  ? " after its cancel" : emergency ? ": an emergency failover is never cancelled by a deletion (the "
                      + "primary is already lost; cancelling would leave no writable primary)"
                      : ": it is past the point where a cancel rolls it back")
              + "; the taints are "
              + "removed and the routing released once it has ended");
          submit(ref, RECHECK.toMillis());
        }
        case CLEAN -> {
          if (!starter.whileNoFailover(ref, () -> clean(ref, group))) {
            submit(ref, RECHECK.toMillis());
          }
        }
        default -> {}
      }
    } catch (Exception e) {
      blocked(ref, group, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private RunLookup lookUp(GroupRef ref) {
    try {
      Optional<FailoverRuns.Running> running = starter.runs().currentFailover(ref);
      return new RunLookup(running.isPresent() ? Run.RUNNING : Run.NONE, running.orElse(null), null);
    } catch (RuntimeException e) {
      return new RunLookup(Run.UNKNOWN, null, e.toString());
    }
  }

  /**
   * The group's taint goes, its routing stays without the group as owner, its tombstone is
   * written, then the finalizer goes: in this order, so that whatever fails leaves the finalizer
   * and the step is done again.
   */
  private void clean(GroupRef ref, MysqlFailoverGroup group) {
    String uid = group.getMetadata().getUid();
    // The cache may still show a group this finalizer let go a moment ago: only the API server says.
    GenericKubernetesResource now = patches.read(ref);
    List<String> finalizers = now == null ? null : now.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(GroupDeletion.FINALIZER)
        || !java.util.Objects.equals(uid, now.getMetadata().getUid())) {
      return;
    }
    boolean sameNameElsewhere = watched.get().stream()
        .anyMatch(other -> other.name().equals(ref.name()) && !other.namespace().equals(ref.namespace()));
    List<SiteSpec> sites = group.getSpec() == null || group.getSpec().sites() == null ? List.of()
        : group.getSpec().sites();
    // The taint key names the group, not its namespace: a group of the same name elsewhere may
    // hold the same taint on its own nodes, which only this group's sites' nodes then lose.
    List<String> untainted = sameNameElsewhere ? taints.removeFromSites(ref, sites) : taints.removeEverywhere(ref);
    List<String> released = orphans.release(ref, uid);
    tombstones.write(ref, uid, clock.instant());
    emitQuietly(ref, uid, Events.GROUP_FINALIZED, "taint " + NodeTaints.taintKey(ref) + " removed from " + untainted
        + "; routing left in place, no longer owned by the group: " + released + "; tombstone "
        + Tombstones.name(ref) + " written for the sidecars");
    patches.remove(ref);
    log.info("{}: finalized (taint removed from {}, released {}); the API server deletes it now", ref, untainted,
        released);
    cancelled.remove(ref);
    said.remove(ref);
    backoff.remove(ref);
  }

  private void addFinalizer(GroupRef ref) {
    boolean added = patches.add(ref);
    if (added) {
      log.info("{}: finalizer {} added: deleting the group removes its taints and leaves its routing in place", ref,
          GroupDeletion.FINALIZER);
      // The tombstone of an earlier group of this name must not speak for this one.
      tombstones.forget(ref);
    }
  }

  /** The finalizer cannot finish now: said once per cause, tried again with a growing pause. */
  private void blocked(GroupRef ref, MysqlFailoverGroup group, String why) {
    long wait = backoff.merge(ref, RECHECK.toMillis(), (before, first) -> Math.min(before * 2, MAX_BACKOFF.toMillis()));
    String message = "the group's finalizer cannot finish: " + why + "; the group stays until it can (tried again "
        + "every " + MAX_BACKOFF.toSeconds() + " s at most)";
    if (!message.equals(said.put(ref, message))) {
      log.warn("{}: {}", ref, message);
      emitQuietly(ref, group.getMetadata().getUid(), Events.GROUP_DELETION_BLOCKED, message);
    }
    submit(ref, wait);
  }

  private void say(GroupRef ref, MysqlFailoverGroup group, Events event, String message) {
    if (!message.equals(said.put(ref, message))) {
      log.info("{}: {}", ref, message);
      emitQuietly(ref, group.getMetadata().getUid(), event, message);
    }
    backoff.remove(ref);
  }

  private void emit(GroupRef ref, String uid, Events event, String message) {
    KubeEffects.emit(client, clock, ref, uid, event.type().name(), event.reason(), message);
  }

  private void emitQuietly(GroupRef ref, String uid, Events event, String message) {
    try {
      emit(ref, uid, event, message);
    } catch (RuntimeException e) {
      log.warn("{}: could not write the {} Event: {}", ref, event.reason(), e.toString());
    }
  }

  @Override
  public void close() {
    queue.close();
  }
}
