package io.shipstream.failover.model.topology;

/**
 * One server's semi-synchronous settings and status as it reports them, in one reading.
 *
 * @param available whether the server has semi-sync at all (MySQL: both plugins installed; MariaDB: always)
 * @param sourceEnabled the source side's setting
 * @param sourceActive whether the source side is active now ({@code Rpl_semi_sync_source_status} /
 *     {@code Rpl_semi_sync_master_status}): OFF while enabled means it has fallen back to asynchronous
 * @param clients how many semi-synchronous replicas are connected ({@code Rpl_semi_sync_*_clients})
 * @param waitCount the wait count (MySQL); null on MariaDB
 * @param timeoutMillis the source side's timeout
 * @param waitPoint {@code AFTER_SYNC} or {@code AFTER_COMMIT}
 * @param replicaEnabled the replica side's setting
 * @param replicaActive whether the replica side is active now ({@code Rpl_semi_sync_replica_status} /
 *     {@code Rpl_semi_sync_slave_status}), which needs the IO thread to have started after it was enabled
 * @param waitNoReplica whether the source waits out its timeout while no semi-synchronous replica is
 *     connected (see {@link SemiSyncSettings#waitNoReplica}); null when not read
 */
public record SemiSyncState(boolean available, boolean sourceEnabled, boolean sourceActive, Integer clients,
    Integer waitCount, Long timeoutMillis, String waitPoint, boolean replicaEnabled, boolean replicaActive,
    Boolean waitNoReplica) {

  /** A reading that does not say how the source waits without replicas. */
  public SemiSyncState(boolean available, boolean sourceEnabled, boolean sourceActive, Integer clients,
      Integer waitCount, Long timeoutMillis, String waitPoint, boolean replicaEnabled, boolean replicaActive) {
    this(available, sourceEnabled, sourceActive, clients, waitCount, timeoutMillis, waitPoint, replicaEnabled,
        replicaActive, null);
  }

  public static final String AFTER_SYNC = "AFTER_SYNC";

  /** A server without semi-sync (MySQL without the plugins). */
  public static SemiSyncState unavailable() {
    return new SemiSyncState(false, false, false, null, null, null, null, false, false);
  }

  /**
   * The source side is enabled but commits no longer wait for any replica: it is not active (no
   * acknowledgement came within the timeout), or no semi-synchronous replica is connected to a
   * source that does not wait without one (which MariaDB still reports as active).
   */
  public boolean fallenBack() {
    return sourceEnabled && (!sourceActive || noReplicaToWaitFor());
  }

  /** Enabled, not waiting while none is connected, and none is. */
  public boolean noReplicaToWaitFor() {
    return sourceEnabled && Boolean.FALSE.equals(waitNoReplica) && clients != null && clients == 0;
  }
}
