package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.workflows.activities.DryRunActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The dry run's activities over {@link FakeMysql}: a reading is the fake's inspection with a
 * round trip of 1 ms per site and a plaintext connection; a hook is reachable unless told; the
 * verdicts recorded are kept in order.
 */
public final class FakeDryRun implements DryRunActivities {
  /** The servers read; set once the rig that owns them is built. */
  public volatile FakeMysql mysql;
  public volatile boolean hookReachable = true;
  public final List<DryRunStatus> recorded = new CopyOnWriteArrayList<>();

  @Override
  public ServerReading read(MysqlTarget target) {
    ServerState s = mysql.inspect(target);
    if (!s.reachable()) {
      return ServerReading.unreachable(target.site(), s.error());
    }
    return new ServerReading(target.site(), true, null, "MariaDB", s.readOnly(), s.gtidExecuted(), null,
        s.replicating(), s.secondsBehindSource(), null, s.gtidReceived(), s.replicaConfigured() ? "Yes" : null, null,
        s.replicaConfigured() ? s.sqlThreadRunning() : null, s.lastSqlError(), null, 1_000L, "plaintext");
  }

  @Override
  public Reachability reach(String url, long timeoutMillis) {
    return hookReachable ? new Reachability(true, 1L, null) : new Reachability(false, null, "connection refused");
  }

  @Override
  public void record(GroupRef group, DryRunStatus verdict, String annotation) {
    recorded.add(verdict);
  }
}
