package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.topology.SemiSyncState;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * What only a dry run asks, beside the inspection every planned failover makes ({@link
 * MysqlActivities#inspect}). Every call reads, except {@link #record}, which writes the dry run's
 * own verdict: no call changes a server, a pod, the spec or another annotation.
 */
@ActivityInterface
public interface DryRunActivities {

  /**
   * Reads a server as the watcher's topology monitor polls it, plus its semi-synchronous state,
   * the round trip of one statement on the open connection, and the transport the connection
   * uses. Never fails: an unreachable server is a reading that says so.
   */
  @ActivityMethod
  ServerReading read(MysqlTarget target);

  /**
   * Whether the hook's endpoint accepts a connection (TCP, within {@code timeoutMillis}): nothing
   * is sent to it, so a hook that does not know about dry runs is never asked to act.
   */
  @ActivityMethod
  Reachability reach(String url, long timeoutMillis);

  /**
   * Writes {@code status.dryRun} and then removes the dry-run annotation if it still holds {@code
   * annotation} (a value changed meanwhile is a new request, left for its own run).
   */
  @ActivityMethod
  void record(GroupRef group, DryRunStatus verdict, String annotation);

  /**
   * One server as a dry run read it. The poll's fields are those of the watcher's probe
   * ({@code mysql.ServerProbe}), so the emergency precheck judges what the watcher would judge.
   *
   * @param roundTripMicros the shortest of a few {@code SELECT 1} on the open connection; null when unreachable
   * @param transport what the connection uses: {@code plaintext}, or {@code TLS (<cipher>)}
   */
  record ServerReading(String site, boolean reachable, String error, String flavor, boolean readOnly,
      String gtidExecuted, String serverId, boolean replicating, Long secondsBehindSource, String sourceServerId,
      String receivedGtid, String ioState, String lastIoError, Boolean sqlRunning, String lastSqlError,
      SemiSyncState semiSync, Long roundTripMicros, String transport) {

    public static ServerReading unreachable(String site, String error) {
      return new ServerReading(site, false, error, null, false, null, null, false, null, null, null, null, null, null,
          null, null, null, null);
    }
  }

  /** Whether a hook's endpoint accepted a connection, and in how long, or why not. */
  record Reachability(boolean reachable, Long connectMillis, String detail) {}
}
