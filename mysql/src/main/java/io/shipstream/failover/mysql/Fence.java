package io.shipstream.failover.mysql;

import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a server refuse application writes: super_read_only on MySQL (it binds accounts with
 * SUPER too), read_only on MariaDB. The one fence of the project: the failover activities, the
 * watcher's fence of a returning old primary and the sidecar's self-fence all apply it.
 *
 * <p>SET GLOBAL (super_)read_only waits for open transactions to end. An application sitting in
 * one must not hold the fence up, so the statement may wait only {@code lockWaitSeconds}; then the
 * application's sessions are killed and the fence tried once more, which no longer has to wait.
 */
public final class Fence {
  private static final Logger LOG = LoggerFactory.getLogger(Fence.class);
  private static final int LOCK_WAIT_TIMEOUT = 1205;

  private Fence() {}

  /**
   * Fences the server of {@code session}. It sets a session variable, so the session's connection
   * is never handed out again.
   *
   * @param lockWaitSeconds how long the fence may wait for open transactions before they are
   *     killed; shorter than the session's socket timeout, or the wait outlasts the connection
   * @param spared accounts whose sessions are not killed besides the session's own logins
   * @return how many application sessions were killed to let the fence through
   */
  public static int apply(MysqlSession session, int lockWaitSeconds, Set<String> spared) throws MysqlException {
    SqlDialect dialect = session.dialect();
    session.changedSessionState();
    session.execute("SET SESSION lock_wait_timeout = " + lockWaitSeconds);
    try {
      dialect.fence(session);
      return 0;
    } catch (MysqlException e) {
      if (e.errorCode() != LOCK_WAIT_TIMEOUT) {
        throw e;
      }
    }
    int killed = AppSessions.kill(session, AppSessions.list(session, spared));
    LOG.warn("fence on {} waited on open transactions; killed {} application sessions and retried",
        session.address(), killed);
    dialect.fence(session);
    return killed;
  }
}
