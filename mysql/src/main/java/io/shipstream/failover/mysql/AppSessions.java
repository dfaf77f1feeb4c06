package io.shipstream.failover.mysql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Application sessions: every connection except our own, the server's threads, replication
 * (both the replica threads here and the binlog dumps feeding replicas), the session's own admin
 * and replication accounts, and any account the caller spares. These are the ones a fence must drain.
 */
public final class AppSessions {
  /**
   * Server threads, and connections still in their handshake: those cannot be told apart from the
   * operator's own (or a sidecar's) yet, hold no transaction, and an application connecting now
   * meets the fence anyway.
   */
  private static final Set<String> SYSTEM_USERS = Set.of("system user", "event_scheduler", "unauthenticated user");
  /** Server threads, replication, handshakes, and sessions already killed that are on their way out. */
  private static final Set<String> NON_APP_COMMANDS =
      Set.of("binlog dump", "binlog dump gtid", "daemon", "slave_io", "slave_sql", "slave_worker", "killed", "connect");
  /** ER_NO_SUCH_THREAD: the session ended between listing and killing. */
  private static final int NO_SUCH_THREAD = 1094;

  private AppSessions() {}

  public static List<Long> list(MysqlSession session) throws MysqlException {
    return list(session, Set.of());
  }

  /**
   * The query {@link #of} reads; this session's own id comes with the list, one round trip instead
   * of two. For callers that send it beside other statements in one exchange.
   */
  public static final String QUERY = "SELECT ID, USER, COMMAND, CONNECTION_ID() AS OWN_ID FROM information_schema.PROCESSLIST";

  /** {@code spared}: accounts whose sessions are not the application's besides the session's own logins. */
  public static List<Long> list(MysqlSession session, Set<String> spared) throws MysqlException {
    return of(session, session.queryRows(QUERY), spared);
  }

  /** The application sessions among the rows of {@link #QUERY}, which {@code session} read. */
  public static List<Long> of(MysqlSession session, List<Map<String, String>> rows, Set<String> spared) {
    Set<String> operatorUsers = new HashSet<>(spared);
    operatorUsers.add(session.credentials().username());
    operatorUsers.add(session.credentials().replicationUsername());
    List<Long> ids = new ArrayList<>();
    for (Map<String, String> row : rows) {
      String id = row.get("ID");
      String own = row.get("OWN_ID");
      String user = row.get("USER") == null ? "" : row.get("USER");
      String command = row.get("COMMAND") == null ? "" : row.get("COMMAND").toLowerCase(Locale.ROOT);
      boolean app =
          !id.equals(own)
              && !SYSTEM_USERS.contains(user)
              && !operatorUsers.contains(user)
              && !NON_APP_COMMANDS.contains(command);
      if (app) {
        ids.add(Long.parseLong(id));
      }
    }
    return ids;
  }

  /** Kills each session; returns how many kills the server accepted. */
  public static int kill(MysqlSession session, List<Long> ids) throws MysqlException {
    int killed = 0;
    for (long id : ids) {
      try {
        session.execute("KILL CONNECTION " + id);
        killed++;
      } catch (MysqlException e) {
        if (e.errorCode() != NO_SUCH_THREAD) {
          throw e;
        }
      }
    }
    return killed;
  }
}
