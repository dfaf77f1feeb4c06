package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.model.topology.SemiSyncState;

/**
 * How the monitor reaches one site's server: a poll and a fence. {@link SiteProber} does it over
 * JDBC; the unit tests pass fakes.
 */
public interface SiteConnector {

  /** One poll; never throws: a server that cannot be asked gives {@link Probe#unreachable}. */
  Probe probe(GroupRef group, GroupConfig config, SiteSpec site);

  /**
   * Makes the server refuse application writes ({@code read_only}, {@code super_read_only} on
   * MySQL).
   *
   * @throws Exception when the server could not be fenced; the caller reports it
   */
  void fence(GroupRef group, GroupConfig config, SiteSpec site) throws Exception;

  /**
   * Makes the server writable again, {@code read_only} (and {@code super_read_only}) off: the
   * active site a DBA unfenced ({@link SiteFences}), or the lift of a lease fence ({@link
   * LeaseFenceLifts}), under the lock the failover starts take.
   *
   * @throws Exception when the server could not be made writable; the caller reports it and tries again
   */
  default void unfence(GroupRef group, GroupConfig config, SiteSpec site) throws Exception {
    throw new UnsupportedOperationException("this connector unfences nothing");
  }

  /** The monitor stopped watching the group (stopped, deleted, or its spec changed): what is kept for it is closed. */
  default void forget(GroupRef group) {}

  /**
   * How the site's server sees its replication source now, for holistic detection; never throws:
   * a server that cannot be asked gives {@link ReplicaView#unanswered}. Connectors that cannot ask
   * (the unit tests' fakes) answer so, and the debounce alone decides.
   */
  default ReplicaView sourceView(GroupRef group, GroupConfig config, SiteSpec site, java.time.Instant at) {
    return ReplicaView.unanswered(site.name(), "not asked", at);
  }

  /**
   * Reads the server's semi-synchronous settings and status and gives it {@code want}, writing only
   * what differs (see {@code mysql/SemiSync}); returns the reading after, with what was changed.
   *
   * @throws Exception when the server could not be read or set; the caller reports it
   */
  default SemiSyncReading semiSync(GroupRef group, GroupConfig config, SiteSpec site, SemiSyncSettings want)
      throws Exception {
    throw new UnsupportedOperationException("semi-sync is not managed by this connector");
  }

  /**
   * A server's semi-sync state before and after {@link #semiSync}, and the settings it changed
   * (empty: none).
   */
  record SemiSyncReading(SemiSyncState before, SemiSyncState state, java.util.List<String> changes) {
    /** A reading that changed nothing. */
    SemiSyncReading(SemiSyncState state, java.util.List<String> changes) {
      this(state, state, changes);
    }
  }
}
