package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.DrainSwitchover;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.model.topology.SiteObservation;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The duties of the monitor's per-group pass that can be off, each with its {@code OFF} form that
 * does nothing: a monitor built without one (tests of the other duties, a watcher that only polls)
 * holds the {@code OFF} form, never a null. Each duty is one class of this package.
 */
public final class Duties {
  private Duties() {}

  /** Adoption, routing, semi-sync and conditions: {@link GroupUpkeep}. */
  public interface Upkeep {
    /**
     * Whether groups are adopted and their routing, semi-sync and conditions kept. Off, the matrix
     * acts on a group that never recorded an active site, and unusable readings are only logged.
     */
    default boolean keeps() {
      return true;
    }

    void invalidSpec(GroupRef ref, MysqlFailoverGroup group, List<String> problems);

    void tlsErrors(GroupRef ref, MysqlFailoverGroup group, List<String> problems);

    Adoption.Decision adopt(GroupRef ref, GroupConfig config, MysqlFailoverGroup group,
        Map<String, SiteObservation> observations);

    List<String> keepRouting(GroupMemory memory, GroupRef ref, GroupConfig config, MysqlFailoverGroupStatus status,
        Map<String, SiteObservation> observations);

    Optional<GroupConditions.Problem> keepSemiSync(GroupMemory memory, GroupRef ref, GroupConfig config,
        MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations);

    void conditions(GroupRef ref, MysqlFailoverGroup group, GroupConditions.Facts facts, boolean runOwnsStatus);

    boolean runConfirmed(GroupRef ref);

    Map<String, Boolean> semiSyncAcking(GroupMemory memory);

    /**
     * Forgets what is kept outside the group's {@link GroupMemory}: which Events and condition notes
     * were last written about it, kept by group since they are written for a group not watched too.
     */
    void forget(GroupRef ref);

    /** Nothing adopted, repaired, kept or written; {@link #keeps} is false. */
    Upkeep OFF = new Upkeep() {
      @Override
      public boolean keeps() {
        return false;
      }

      @Override
      public void invalidSpec(GroupRef ref, MysqlFailoverGroup group, List<String> problems) {}

      @Override
      public void tlsErrors(GroupRef ref, MysqlFailoverGroup group, List<String> problems) {}

      @Override
      public Adoption.Decision adopt(GroupRef ref, GroupConfig config, MysqlFailoverGroup group,
          Map<String, SiteObservation> observations) {
        return new Adoption.Wait("groups are not adopted");
      }

      @Override
      public List<String> keepRouting(GroupMemory memory, GroupRef ref, GroupConfig config,
          MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations) {
        return List.of();
      }

      @Override
      public Optional<GroupConditions.Problem> keepSemiSync(GroupMemory memory, GroupRef ref, GroupConfig config,
          MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations) {
        return Optional.empty();
      }

      @Override
      public void conditions(GroupRef ref, MysqlFailoverGroup group, GroupConditions.Facts facts,
          boolean runOwnsStatus) {}

      @Override
      public boolean runConfirmed(GroupRef ref) {
        return false;
      }

      @Override
      public Map<String, Boolean> semiSyncAcking(GroupMemory memory) {
        return Map.of();
      }

      @Override
      public void forget(GroupRef ref) {}
    };
  }

  /** The returning old primary fenced and brought back: {@link OldPrimaryRecovery}. */
  public interface Recovery {
    void check(GroupMemory memory, GroupRef group, GroupConfig config, Map<String, SiteObservation> observations,
        MysqlFailoverGroupStatus status);

    List<SiteStatus> withDivergence(GroupMemory memory, List<SiteStatus> statuses);

    /** No old primary fenced or brought back, and no divergence shown. */
    Recovery OFF = new Recovery() {
      @Override
      public void check(GroupMemory memory, GroupRef group, GroupConfig config,
          Map<String, SiteObservation> observations, MysqlFailoverGroupStatus status) {}

      @Override
      public List<SiteStatus> withDivergence(GroupMemory memory, List<SiteStatus> statuses) {
        return statuses;
      }
    };
  }

  /** The sidecars asked how their servers start: {@link StartupChecks}. */
  public interface Startup {
    void watch(GroupRef group, GroupConfig config);

    List<GroupConditions.Problem> controlPlaneProblems(GroupRef group);

    List<String> unguarded(GroupRef group);

    List<String> startingWritable(GroupRef group);

    void forget(GroupRef group);

    void close();

    /** No sidecar asked; nothing to report. */
    Startup OFF = new Startup() {
      @Override
      public void watch(GroupRef group, GroupConfig config) {}

      @Override
      public List<GroupConditions.Problem> controlPlaneProblems(GroupRef group) {
        return List.of();
      }

      @Override
      public List<String> unguarded(GroupRef group) {
        return List.of();
      }

      @Override
      public List<String> startingWritable(GroupRef group) {
        return List.of();
      }

      @Override
      public void forget(GroupRef group) {}

      @Override
      public void close() {}
    };
  }

  /** A lease fence of the active primary that nothing explains lifted: {@link LeaseFenceLifts}. */
  public interface LeaseFences {
    LeaseFenceRelease.Decision check(GroupMemory memory, GroupRef group, GroupConfig config,
        MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations);

    void close();

    /** No lease fence is ever lifted. */
    LeaseFences OFF = new LeaseFences() {
      @Override
      public LeaseFenceRelease.Decision check(GroupMemory memory, GroupRef group, GroupConfig config,
          MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations) {
        return new LeaseFenceRelease.Keep("lease fences are not lifted", false);
      }

      @Override
      public void close() {}
    };
  }

  /** The switchover before the active site's node is drained: {@link DrainWatch}. */
  public interface Drains {
    DrainSwitchover.Outcome check(GroupRef group, GroupConfig config, MysqlFailoverGroup resource,
        Map<String, SiteObservation> sites, boolean paused);

    void forget(GroupRef group);

    /** No node's drain is watched. */
    Drains OFF = new Drains() {
      @Override
      public DrainSwitchover.Outcome check(GroupRef group, GroupConfig config, MysqlFailoverGroup resource,
          Map<String, SiteObservation> sites, boolean paused) {
        return new DrainSwitchover.Nothing("drains are not watched");
      }

      @Override
      public void forget(GroupRef group) {}
    };
  }
}
