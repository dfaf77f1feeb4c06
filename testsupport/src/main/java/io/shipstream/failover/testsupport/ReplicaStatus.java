package io.shipstream.failover.testsupport;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * What {@code SHOW SLAVE STATUS} (MariaDB) or {@code SHOW REPLICA STATUS} (MySQL) says about a test
 * server's default replication channel, named the same for both. {@code gtidIoPos} is what the IO
 * thread has written to the relay log: MariaDB's Gtid_IO_Pos, MySQL's Retrieved_Gtid_Set (without
 * whitespace). {@code gtidPositioned} says the channel positions by GTID rather than by binlog file
 * and offset: MySQL's Auto_Position = 1, MariaDB's Using_Gtid other than No.
 */
public record ReplicaStatus(
    boolean configured,
    String ioRunning,
    String sqlRunning,
    String sourceHost,
    int sourcePort,
    String gtidIoPos,
    String lastIoError,
    String lastSqlError,
    boolean gtidPositioned) {

  static final ReplicaStatus NOT_A_REPLICA = new ReplicaStatus(false, "No", "No", null, 0, "", "", "", false);

  public boolean running() {
    return "Yes".equals(ioRunning) && "Yes".equals(sqlRunning);
  }

  static ReplicaStatus read(DatabaseServer server) {
    boolean mysql = server.flavor() == Flavor.MYSQL;
    try (Connection connection = server.adminConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(mysql ? "SHOW REPLICA STATUS" : "SHOW SLAVE STATUS")) {
      if (!rows.next()) {
        return NOT_A_REPLICA;
      }
      if (mysql) {
        return new ReplicaStatus(
            true,
            rows.getString("Replica_IO_Running"),
            rows.getString("Replica_SQL_Running"),
            rows.getString("Source_Host"),
            rows.getInt("Source_Port"),
            rows.getString("Retrieved_Gtid_Set").replaceAll("\\s+", ""),
            rows.getString("Last_IO_Error"),
            rows.getString("Last_SQL_Error"),
            rows.getInt("Auto_Position") == 1);
      }
      return new ReplicaStatus(
          true,
          rows.getString("Slave_IO_Running"),
          rows.getString("Slave_SQL_Running"),
          rows.getString("Master_Host"),
          rows.getInt("Master_Port"),
          rows.getString("Gtid_IO_Pos"),
          rows.getString("Last_IO_Error"),
          rows.getString("Last_SQL_Error"),
          !"No".equalsIgnoreCase(rows.getString("Using_Gtid")));
    } catch (SQLException e) {
      throw new IllegalStateException(server.name() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Waits until both threads run. Fails early when a thread has stopped with an error, since that
   * will not fix itself; a thread still "Connecting" is given the whole timeout.
   */
  static ReplicaStatus awaitRunning(DatabaseServer server, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ReplicaStatus status = read(server);
    while (!status.running()) {
      boolean stoppedWithError =
          ("No".equals(status.ioRunning) && !status.lastIoError.isEmpty())
              || ("No".equals(status.sqlRunning) && !status.lastSqlError.isEmpty());
      if (stoppedWithError || System.nanoTime() > deadline) {
        throw new IllegalStateException(server.name() + ": replication is not running: " + status);
      }
      MariaDbServer.sleep(Duration.ofMillis(20));
      status = read(server);
    }
    return status;
  }
}
