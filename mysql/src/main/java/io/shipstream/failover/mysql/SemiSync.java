package io.shipstream.failover.mysql;

import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.model.topology.SemiSyncState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads and applies one server's semi-synchronous settings, the same steps on both flavors with
 * the flavor's names ({@link SqlDialect#semiSyncNames}). Reading is one round trip: every
 * {@code rpl_semi_sync_*} variable and {@code Rpl_semi_sync_*} status in one query. Applying
 * writes only what differs, so a server already right gets no statement at all.
 *
 * <p>MySQL: the two plugins are installed first (once: {@code INSTALL PLUGIN} records them in
 * {@code mysql.plugin}, which needs {@code INSERT} on it and a server that is not
 * {@code super_read_only}, see {@link SqlDialect#installSemiSync}), and every setting is
 * {@code SET PERSIST} ({@code SYSTEM_VARIABLES_ADMIN}), so it survives a restart. MariaDB has
 * semi-sync built in; {@code SET GLOBAL} ({@code REPLICATION MASTER ADMIN}, {@code REPLICATION
 * SLAVE ADMIN} or {@code SUPER}) lasts until the restart, which the server's configuration must
 * cover (README, "Semi-synchronous durability").
 *
 * <p>A replica side switched on or off takes effect at the IO thread's next start, so a running
 * IO thread is restarted ({@code REPLICATION_SLAVE_ADMIN}); the SQL thread goes on applying.
 */
public final class SemiSync {
  private SemiSync() {}

  /** The variable and status names of one flavor, lower case, without the {@code rpl_semi_sync_} prefix. */
  public record Names(String source, String replica, String variables, String status) {}

  /** What {@link #apply} found, did and left. */
  public record Outcome(SemiSyncState before, List<String> changes, SemiSyncState after) {
    public boolean changed() {
      return !changes.isEmpty();
    }
  }

  /** The server's settings and status in one round trip. */
  public static SemiSyncState read(MysqlSession session) throws MysqlException {
    Names n = session.dialect().semiSyncNames();
    Map<String, String> values = new TreeMap<>();
    for (Map<String, String> row : session.queryRows("SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM "
        + n.variables() + " WHERE VARIABLE_NAME LIKE 'rpl\\_semi\\_sync\\_%' UNION ALL SELECT VARIABLE_NAME, "
        + "VARIABLE_VALUE FROM " + n.status() + " WHERE VARIABLE_NAME LIKE 'rpl\\_semi\\_sync\\_%'")) {
      values.put(row.get("name").toLowerCase(Locale.ROOT), row.get("value"));
    }
    String s = "rpl_semi_sync_" + n.source() + "_";
    String r = "rpl_semi_sync_" + n.replica() + "_";
    if (!values.containsKey(s + "enabled") || !values.containsKey(r + "enabled")) {
      return SemiSyncState.unavailable();
    }
    return new SemiSyncState(true, MysqlSession.flag(values.get(s + "enabled")),
        MysqlSession.flag(values.get(s + "status")),
        integer(values.get(s + "clients")), integer(values.get(s + "wait_for_" + n.replica() + "_count")),
        ReplicaStatus.parseLong(values.get(s + "timeout")), values.get(s + "wait_point"),
        MysqlSession.flag(values.get(r + "enabled")), MysqlSession.flag(values.get(r + "status")),
        values.containsKey(s + "wait_no_" + n.replica()) ? MysqlSession.flag(values.get(s + "wait_no_" + n.replica()))
            : null);
  }

  /** Gives the server {@code want}, writing only what differs; idempotent. */
  public static Outcome apply(MysqlSession session, SemiSyncSettings want) throws MysqlException {
    SqlDialect dialect = session.dialect();
    Names n = dialect.semiSyncNames();
    SemiSyncState before = read(session);
    if (want.satisfiedBy(before)) {
      return new Outcome(before, List.of(), before);
    }
    List<String> changes = new ArrayList<>();
    SemiSyncState now = before;
    if (!now.available()) {
      dialect.installSemiSync(session);
      changes.add("semi-sync plugins installed");
      now = read(session);
      if (!now.available()) {
        throw new MysqlException("semi-synchronous replication is not available on " + session.address()
            + " after installing its plugins");
      }
    }
    String s = "rpl_semi_sync_" + n.source() + "_";
    String r = "rpl_semi_sync_" + n.replica() + "_";
    if (want.sourceEnabled()) {
      // The details before the switch, so the first commit that waits already waits as wanted.
      if (!SemiSyncState.AFTER_SYNC.equalsIgnoreCase(String.valueOf(now.waitPoint()))) {
        set(session, dialect, changes, s + "wait_point", SemiSyncState.AFTER_SYNC);
      }
      if (want.timeoutMillis() != null && !want.timeoutMillis().equals(now.timeoutMillis())) {
        set(session, dialect, changes, s + "timeout", want.timeoutMillis());
      }
      if (want.waitNoReplica() != null && now.waitNoReplica() != null
          && !want.waitNoReplica().equals(now.waitNoReplica())) {
        set(session, dialect, changes, s + "wait_no_" + n.replica(), want.waitNoReplica() ? "ON" : "OFF");
      }
      // MariaDB has no wait count (null): it waits for one acknowledgement.
      if (want.waitCount() != null && now.waitCount() != null && !want.waitCount().equals(now.waitCount())) {
        set(session, dialect, changes, s + "wait_for_" + n.replica() + "_count", want.waitCount());
      }
    }
    if (want.sourceEnabled() != now.sourceEnabled()) {
      set(session, dialect, changes, s + "enabled", want.sourceEnabled() ? "ON" : "OFF");
    }
    if (want.replicaEnabled() != now.replicaEnabled()) {
      set(session, dialect, changes, r + "enabled", want.replicaEnabled() ? "ON" : "OFF");
      Optional<ReplicaStatus> replica = dialect.replicaStatus(session);
      if (replica.isPresent() && replica.get().ioActive()) {
        // The replica side is read when the IO thread connects: restarted, it acknowledges (or stops).
        dialect.stopIoThread(session);
        dialect.startIoThread(session);
        changes.add("IO thread restarted");
      }
    }
    return new Outcome(before, List.copyOf(changes), read(session));
  }

  private static void set(MysqlSession session, SqlDialect dialect, List<String> changes, String variable, Object value)
      throws MysqlException {
    String literal = value instanceof String text ? "'" + text + "'" : String.valueOf(value);
    session.execute(dialect.persistVariable() + " " + variable + " = " + literal);
    changes.add(variable + "=" + value);
  }

  private static Integer integer(String value) {
    Long v = ReplicaStatus.parseLong(value);
    return v == null ? null : v.intValue();
  }
}
