package io.shipstream.failover.mysql;

import java.util.List;
import java.util.Map;
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
 *
 * <p>A commit waiting for a semi-synchronous acknowledgement holds the commit lock the fence needs,
 * and a primary cut off from its replicas gets no acknowledgement: the fence must not wait behind
 * it. Waiting would not only delay the fence: when the wait outlasts the semi-sync timeout the
 * server falls back to asynchronous and acknowledges those commits (and the next ones, until the
 * fence lands) though no replica has them, which a cut-off primary's sidecar must prevent (its
 * fence is meant to land at lease + peer check, before a semi-sync timeout set longer than that).
 * When a commit waits for one, the fence is queued first and the application's sessions killed
 * after, then the flavor ends the killed commits' waits ({@link AckWaitFence}): the waiting
 * sessions' clients get an error (their commits are in doubt, never acknowledged), and nobody
 * reconnects and commits before the fence lands.
 */
public final class Fence {
  private static final Logger LOG = LoggerFactory.getLogger(Fence.class);
  private static final int LOCK_WAIT_TIMEOUT = 1205;

  private Fence() {}

  /**
   * What {@link #applyAndRead} found: the executed GTID set read right after the fence (the same
   * exchange, or the next one when the fence had to wait: nothing an application sends commits
   * after the fence), the application sessions still connected, and how many were killed to let the
   * fence through.
   */
  public record Fenced(String gtidExecuted, List<Long> appSessions, int killed) {}

  /**
   * Fences the server of {@code session} and reads its executed GTID set and its application
   * sessions, in one exchange: across a WAN link the fence of a remote source is then one round
   * trip. The session's lock wait is set for the fence and put back in the same exchange, so the
   * connection may serve the next step; only when the fence had to wait and sessions were killed is
   * it left changed (and the connection not reused).
   *
   * @param lockWaitSeconds as {@link #apply}
   * @param spared as {@link #apply}
   */
  public static Fenced applyAndRead(MysqlSession session, int lockWaitSeconds, Set<String> spared)
      throws MysqlException {
    SqlDialect dialect = session.dialect();
    String fenceAndRead = "SET SESSION lock_wait_timeout = " + lockWaitSeconds + "; " + dialect.fenceStatement()
        + "; SET SESSION lock_wait_timeout = DEFAULT; " + dialect.positionsQuery() + "; " + AppSessions.QUERY;
    List<List<Map<String, String>>> results;
    int killed = 0;
    try {
      results = session.queryAll(fenceAndRead);
    } catch (MysqlException e) {
      // The lock wait stays set when the fence failed after it.
      session.changedSessionState();
      if (e.errorCode() != LOCK_WAIT_TIMEOUT) {
        throw e;
      }
      killed = pastTheLockWait(session, lockWaitSeconds, spared, true);
      // Fenced now: nothing an application sends commits between the fence and this read.
      results = session.queryAll(dialect.positionsQuery() + "; " + AppSessions.QUERY);
    }
    String executed = dialect.positions(results.get(0).get(0)).executed();
    return new Fenced(executed, AppSessions.of(session, results.get(1), spared), killed);
  }

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
    if (ackWaits(session)) {
      return AckWaitFence.apply(session, lockWaitSeconds, spared);
    }
    try {
      // One exchange: the lock wait and the fence.
      session.queryAll("SET SESSION lock_wait_timeout = " + lockWaitSeconds + "; " + dialect.fenceStatement());
      return 0;
    } catch (MysqlException e) {
      if (e.errorCode() != LOCK_WAIT_TIMEOUT) {
        throw e;
      }
    }
    // A commit that began waiting for an acknowledgement while this fence waited is not got past
    // here but by the next attempt, which sees it first: one attempt waits one lock wait at most
    // (the sidecar's tick has room for one, JdbcLocalMysql.LONGEST_HEALTHY_WORK).
    return pastTheLockWait(session, lockWaitSeconds, spared, false);
  }

  /**
   * Lifts the fence: applications may write again (read_only, and super_read_only on MySQL, cleared
   * in one statement, {@link SqlDialect#clearReadOnly}). The one unfence of the project: the
   * activities' unfence of a failover's old primary, the watcher's unfence of a fenced active site
   * and the sidecar's unfence of its own server (its boot fence, or the server's start-up
   * read-only) all lift it.
   *
   * @param readBack whether to read the flags back afterwards, one more statement (the sidecar does
   *     not: its next look at the server reads them anyway)
   * @return whether the server accepts application writes now, as read back; true without reading
   *     when not {@code readBack} (the statement was accepted)
   */
  public static boolean lift(MysqlSession session, boolean readBack) throws MysqlException {
    SqlDialect dialect = session.dialect();
    dialect.clearReadOnly(session);
    return !readBack || dialect.writable(session);
  }

  /**
   * The fence waited out its lock wait (the session's lock_wait_timeout is set): an open
   * transaction, or a commit that began waiting for an acknowledgement after the first look. The
   * application's sessions are killed and the fence tried once more; a commit still waiting for an
   * acknowledgement then (a kill does not end the wait on MySQL) is got past by {@link AckWaitFence}
   * when {@code pastAckWaits} (the activities' {@link #applyAndRead}, whose callers have room for a
   * second wait); otherwise the attempt fails and the next one, which sees it first, gets past it.
   */
  private static int pastTheLockWait(MysqlSession session, int lockWaitSeconds, Set<String> spared,
      boolean pastAckWaits) throws MysqlException {
    SqlDialect dialect = session.dialect();
    if (pastAckWaits && ackWaits(session)) {
      return AckWaitFence.apply(session, lockWaitSeconds, spared);
    }
    int killed = AppSessions.kill(session, AppSessions.list(session, spared));
    LOG.warn("fence on {} waited on open transactions; killed {} application sessions and retried",
        session.address(), killed);
    try {
      dialect.fence(session);
      return killed;
    } catch (MysqlException e) {
      if (e.errorCode() != LOCK_WAIT_TIMEOUT || !pastAckWaits || !ackWaits(session)) {
        throw e;
      }
    }
    return killed + AckWaitFence.apply(session, lockWaitSeconds, spared);
  }

  /** Whether any session, killed or not, has a commit waiting for a semi-synchronous acknowledgement. */
  static boolean ackWaits(MysqlSession session) throws MysqlException {
    return !session.queryRows(ACK_WAITS).isEmpty();
  }

  /** MariaDB's state says "Waiting for semi-sync ACK from slave", MySQL's "... from replica". */
  private static final String ACK_WAITS =
      "SELECT ID FROM information_schema.PROCESSLIST WHERE STATE LIKE '%semi-sync ACK%' LIMIT 1";
}
