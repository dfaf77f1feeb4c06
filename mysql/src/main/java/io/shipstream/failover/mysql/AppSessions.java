package io.shipstream.failover.mysql;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Application sessions: every connection except our own, the server's threads, replication
 * (both the replica threads here and the binlog dumps feeding replicas), the session's own admin
 * and replication accounts, and any account the caller spares. These are the ones a fence must drain.
 */
public final class AppSessions {
  private static final Logger LOG = LoggerFactory.getLogger(AppSessions.class);
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
  public static final String QUERY =
      "SELECT ID, USER, COMMAND, CONNECTION_ID() AS OWN_ID FROM information_schema.PROCESSLIST";

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

  /** What {@link #drainWhileFenced} did: the kills the server accepted, and the sessions still there. */
  public record Drained(int killed, int remaining) {}

  /**
   * Kills the application's sessions of a fenced primary, every {@code interval} until none is left
   * or {@code deadline} passes; {@code beat} is told the kills so far after each pass, as an activity
   * heartbeats. At least one pass even when the deadline has passed already: a retry still drains.
   * The drain serves a fenced primary only: once the server is writable again (a rollback) or
   * replicates (it rejoined as a replica), its sessions are legitimate and it stops by itself, so
   * its caller never has to cancel it.
   */
  public static Drained drainWhileFenced(MysqlSession session, Instant deadline, Clock clock, Duration interval,
      Consumer<Object> beat) throws MysqlException {
    int killed = 0;
    List<Long> sessions = list(session);
    while (!sessions.isEmpty() && stillFenced(session)) {
      killed += kill(session, sessions);
      beat.accept(killed);
      if (!clock.instant().isBefore(deadline)) {
        break;
      }
      ReplicationStart.sleep(interval);
      sessions = list(session);
    }
    int remaining = sessions.isEmpty() ? 0 : list(session).size();
    LOG.info("drained {}: killed {} application sessions, {} remaining", session.address(), killed, remaining);
    return new Drained(killed, remaining);
  }

  private static boolean stillFenced(MysqlSession session) throws MysqlException {
    SqlDialect dialect = session.dialect();
    return dialect.readOnly(session) && dialect.replicaStatus(session).isEmpty();
  }
}
