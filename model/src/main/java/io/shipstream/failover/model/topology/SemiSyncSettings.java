package io.shipstream.failover.model.topology;

/**
 * The semi-synchronous settings one server should have. The source side matters only on the
 * primary; the replica side on every server that acknowledges, the primary included, so that a
 * demoted primary acknowledges from its first connection to the new one.
 *
 * @param sourceEnabled the source side (MySQL {@code rpl_semi_sync_source_enabled}, MariaDB
 *     {@code rpl_semi_sync_master_enabled}); when on, the wait point is {@code AFTER_SYNC}
 * @param replicaEnabled the replica side ({@code rpl_semi_sync_replica_enabled} / {@code rpl_semi_sync_slave_enabled})
 * @param waitCount how many acknowledgements a commit waits for (MySQL
 *     {@code rpl_semi_sync_source_wait_for_replica_count}); null: not set (servers with the source side off);
 *     ignored by MariaDB, which has no such setting and waits for one
 * @param timeoutMillis how long a commit waits before the source falls back to asynchronous
 *     replication; null: not set (servers with the source side off)
 * @param waitNoReplica whether a commit waits out the timeout even while no semi-synchronous replica is
 *     connected (MySQL {@code rpl_semi_sync_source_wait_no_replica}, MariaDB
 *     {@code rpl_semi_sync_master_wait_no_slave}); false: the source turns asynchronous at once when
 *     the last one is gone, and back when one acknowledges again. Null: not set
 */
public record SemiSyncSettings(boolean sourceEnabled, boolean replicaEnabled, Integer waitCount, Long timeoutMillis,
    Boolean waitNoReplica) {

  /** Both sides off: a server that neither waits for acknowledgements nor sends them. */
  public static final SemiSyncSettings OFF = new SemiSyncSettings(false, false, null, null);

  /** Settings that leave the wait without replicas as the server has it. */
  public SemiSyncSettings(boolean sourceEnabled, boolean replicaEnabled, Integer waitCount, Long timeoutMillis) {
    this(sourceEnabled, replicaEnabled, waitCount, timeoutMillis, null);
  }

  /** What the primary's own reading says about these settings, field by field; true when nothing must change. */
  public boolean satisfiedBy(SemiSyncState state) {
    if (state == null) {
      return false;
    }
    if (!state.available()) {
      // A server without semi-sync (MySQL without the plugins) has both sides off already.
      return !sourceEnabled && !replicaEnabled;
    }
    if (state.sourceEnabled() != sourceEnabled || state.replicaEnabled() != replicaEnabled) {
      return false;
    }
    if (sourceEnabled && (!SemiSyncState.AFTER_SYNC.equalsIgnoreCase(String.valueOf(state.waitPoint()))
        || timeoutMillis != null && !timeoutMillis.equals(state.timeoutMillis())
        || waitCount != null && state.waitCount() != null && !waitCount.equals(state.waitCount())
        || waitNoReplica != null && state.waitNoReplica() != null && !waitNoReplica.equals(state.waitNoReplica()))) {
      return false;
    }
    return true;
  }
}
