package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Decision;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Keep;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Lift;
import io.shipstream.failover.model.topology.LeaseFenceRelease.SidecarFence;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.DaemonThreads;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lifts the lease fence of the active site's primary once nothing explains it any more ({@link
 * LeaseFenceRelease}): the sidecar fenced it by rule 2 when it heard from nobody, contact came back
 * before anyone failed over, and the sidecar never lifts a read-only itself. Asked at every
 * evaluation of a group without a writable primary; the sidecar's {@code /status} is read on a
 * thread of its own (an evaluation never waits on HTTP), and its answer serves the evaluations of
 * the next {@link #FRESH} only. The lift itself runs under the lock the failover starts take, after
 * one more look at whether a failover runs, so none can begin between the decision and the lift.
 */
public final class LeaseFenceLifts implements Duties.LeaseFences, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseFenceLifts.class);
  /** How long a sidecar's answer stands for the decision: a few polls, never a stale lease. */
  static final Duration FRESH = Duration.ofSeconds(5);

  /** What the lift needs of the world: the lift itself, under the failover start lock, and Events. */
  public interface Effects {
    /**
     * Makes the site's server writable again unless a failover runs for the group, with the
     * failover starts held meanwhile; false when one runs.
     */
    boolean liftLeaseFence(GroupRef group, GroupConfig config, SiteSpec site) throws Exception;

    void event(GroupRef group, String type, String reason, String message);
  }

  /** Asks a sidecar for its own standing fence; empty from a sidecar too old to say. */
  interface Asker {
    Optional<SidecarFence> ownFence(GroupRef group, String sidecarUrl) throws Exception;
  }

  private record Answer(String site, SidecarFence fence, Instant at) {}

  /** What the lifts keep about one group between passes: their slice of the group's {@link GroupMemory}. */
  static final class Memory {
    /** The sidecar's latest answer about what fenced the active site, written by the request thread. */
    volatile Answer answer;
    /** The last lift that failed, so that a failure repeating every poll is one Event. */
    volatile String failed;
  }

  private final Effects effects;
  private final Asker asker;
  private final Clock clock;
  /** The groups whose sidecar is being asked: one request at a time per group, whatever became of its polls. */
  private final Map<GroupRef, Boolean> asking = new ConcurrentHashMap<>();
  private final ExecutorService requests = Executors.newSingleThreadExecutor(DaemonThreads.named("lease-fence"));

  LeaseFenceLifts(Effects effects, Asker asker, Clock clock) {
    this.effects = effects;
    this.asker = asker;
    this.clock = clock;
  }

  /** The watcher's: each group's sidecars are asked with its credential ({@code tokens}), over {@code tls}. */
  public static LeaseFenceLifts of(Effects effects, java.util.function.Function<GroupRef, SharedToken> tokens,
      ControlPlaneTls tls, Clock clock) {
    SidecarStatusReader reader = new SidecarStatusReader(tokens, tls);
    return new LeaseFenceLifts(effects, reader::ownFence, clock);
  }

  /**
   * One evaluation of a group whose polls found no writable site; paused groups are not passed in.
   * Returns the decision, for tests and logs.
   */
  public Decision check(GroupMemory memory, GroupRef group, GroupConfig config, MysqlFailoverGroupStatus status,
      Map<String, SiteObservation> observations) {
    Memory m = memory.leaseFences;
    String active = status.activeSite();
    Answer answer = m.answer;
    SidecarFence fence = answer != null && answer.site().equals(active)
        && answer.at().plus(FRESH).isAfter(clock.instant()) ? answer.fence() : null;
    Decision d = LeaseFenceRelease.decide(config, observations, active, status.fencedSites(),
        GroupUpkeep.failoverRunning(status), fence);
    if (d instanceof Keep keep) {
      if (keep.askSidecar()) {
        config.site(active).ifPresent(site -> ask(m, group, site));
      } else {
        m.answer = null;
      }
      return d;
    }
    Lift lift = (Lift) d;
    SiteSpec site = config.site(lift.site()).orElseThrow();
    m.answer = null;
    try {
      if (effects.liftLeaseFence(group, config, site)) {
        m.failed = null;
        log.warn("{}: lifted the lease fence of '{}': {}", group, site.name(), lift.reason());
        effects.event(group, Events.LEASE_FENCE_LIFTED.type().name(), Events.LEASE_FENCE_LIFTED.reason(),
            lift.reason());
      }
    } catch (Exception e) {
      String why = "could not lift the lease fence of '" + site.name() + "': " + e.getMessage();
      String before = m.failed;
      m.failed = why;
      if (!why.equals(before)) {
        log.warn("{}: {}", group, why);
        effects.event(group, Events.LEASE_FENCE_LIFT_FAILED.type().name(), Events.LEASE_FENCE_LIFT_FAILED.reason(),
            why);
      }
    }
    return d;
  }

  /**
   * Reads the site's sidecar's {@code /status} on the request thread, once at a time per group; the
   * answer goes to the memory of the polls that asked (dropped with them if they stopped meanwhile).
   */
  private void ask(Memory m, GroupRef group, SiteSpec site) {
    if (site.sidecar() == null || site.sidecar().url() == null || site.sidecar().url().isBlank()
        || asking.putIfAbsent(group, true) != null) {
      return;
    }
    try {
      requests.execute(() -> {
        try {
          asker.ownFence(group, site.sidecar().url())
              .ifPresent(f -> m.answer = new Answer(site.name(), f, clock.instant()));
        } catch (Exception e) {
          log.debug("{}: the sidecar of '{}' did not say what fenced it: {}", group, site.name(), e.toString());
        } finally {
          asking.remove(group);
        }
      });
    } catch (RejectedExecutionException e) {
      asking.remove(group);
    }
  }

  @Override
  public void close() {
    requests.shutdownNow();
  }
}
