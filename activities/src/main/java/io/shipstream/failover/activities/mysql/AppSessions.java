package io.shipstream.failover.activities.mysql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Application sessions: every connection except our own, the server's threads, replication
 * (both the replica threads here and the binlog dumps feeding replicas), and the operator's and
 * replication accounts. These are the ones a fence must drain.
 */
final class AppSessions {
  /**
   * Server threads, and connections still in their handshake: those cannot be told apart from the
   * operator's own (or a sidecar's) yet, and an application connecting now meets the fence anyway.
   */
  private static final Set<String> SYSTEM_USERS = Set.of("system user", "event_scheduler", "unauthenticated user");
  /** Server threads, replication, handshakes, and sessions already killed that are on their way out. */
  private static final Set<String> NON_APP_COMMANDS =
      Set.of("binlog dump", "binlog dump gtid", "daemon", "slave_io", "slave_sql", "slave_worker", "killed", "connect");
  /** ER_NO_SUCH_THREAD: the session ended between listing and killing. */
  private static final int NO_SUCH_THREAD = 1094;

  private AppSessions() {}

  static List<Long> list(MysqlSession session) throws SQLException {
    Set<String> operatorUsers = Set.of(session.credentials().username(), session.credentials().replicationUsername());
    List<Long> ids = new ArrayList<>();
    // This session's own id comes with the list, one round trip instead of two.
    for (Map<String, String> row : session.queryRows(
        "SELECT ID, USER, COMMAND, CONNECTION_ID() AS OWN_ID FROM information_schema.PROCESSLIST")) {
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
  static int kill(MysqlSession session, List<Long> ids) throws SQLException {
    int killed = 0;
    for (long id : ids) {
      try {
        session.execute("KILL CONNECTION " + id);
        killed++;
      } catch (SQLException e) {
        if (e.getErrorCode() != NO_SUCH_THREAD) {
          throw e;
        }
      }
    }
    return killed;
  }
}
