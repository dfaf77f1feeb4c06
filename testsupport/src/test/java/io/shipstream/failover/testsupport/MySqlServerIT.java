package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.gtid.GtidSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two real MySQL 9.7 servers from the chroot root: GTID replication with auto-positioning both
 * ways, the write-load client through MySQL Connector/J, and nothing left running after close.
 */
class MySqlServerIT {
  private static final Logger LOG = LoggerFactory.getLogger(MySqlServerIT.class);

  /** Per test, not per class: a class skipped in @BeforeAll shows as no test at all in the reports. */
  @BeforeEach
  void mysqlIsAvailable() {
    Flavor.MYSQL.assumeAvailable();
  }

  @Test
  void twoServersReplicateAWriteLoadWithAutoPositionAndLeaveNothingBehind() throws SQLException {
    List<ProcessHandle> processes = new ArrayList<>();
    List<Path> datadirs = new ArrayList<>();
    long started = System.nanoTime();
    try (DatabaseCluster cluster = DatabaseCluster.start(Flavor.MYSQL, Path.of("target", "it-mysql"), 2)) {
      LOG.info("MEASURE two MySQL servers replicating in {} ms", (System.nanoTime() - started) / 1_000_000);
      DatabaseServer primary = cluster.primary();
      DatabaseServer replica = cluster.server(1);
      for (DatabaseServer server : cluster.servers()) {
        ProcessHandle process = ProcessHandle.of(server.pid()).orElseThrow();
        processes.add(process);
        process.descendants().forEach(processes::add);
        // The process started is mysqld itself, from the root: never the host's mariadbd.
        assertThat(process.info().command()).hasValue(MySqlRoot.directory().resolve("usr/sbin/mysqld").toString());
        assertThat(server.queryString("SELECT VERSION()")).startsWith("9.7.");
        assertThat(server.queryString("SELECT @@global.gtid_mode")).isEqualTo("ON");
        datadirs.add(MySqlTemplate.runDirectory().resolve(Long.toString(((MySqlServer) server).serverId())));
        try (Connection connection = server.adminConnection()) {
          assertThat(connection.getMetaData().getDriverName()).contains("MySQL Connector/J");
        }
      }
      assertThat(primary.queryString("SELECT @@global.server_uuid"))
          .isNotEqualTo(replica.queryString("SELECT @@global.server_uuid"));
      assertThat(autoPosition(replica)).isEqualTo("1");
      assertThat(replica.isReadOnly()).isTrue();

      AtomicReference<String> service = new AtomicReference<>(primary.jdbcUrl());
      try (WriteLoad load = WriteLoad.start(service::get)) {
        load.awaitAcknowledged(200, Duration.ofSeconds(30));
        load.stop();
        replica.awaitCaughtUpWith(primary, Duration.ofSeconds(30));
        assertThat(DatabaseCluster.writtenIds(replica))
            .containsAll(load.acknowledged())
            .isEqualTo(DatabaseCluster.writtenIds(primary));
      }
      // One GTID set, all of it the primary's own transactions, and the replica has logged it too.
      String primaryUuid = primary.queryString("SELECT @@global.server_uuid");
      assertThat(replica.gtidExecuted()).isEqualTo(primary.gtidExecuted()).startsWith(primaryUuid + ":1-");
      assertThat(GtidSet.parse(replica.replicaStatus().gtidIoPos())).isEqualTo(GtidSet.parse(primary.gtidExecuted()));

      // The other way round: the former primary follows its old replica, asking only for what it lacks.
      primary.setReadOnly(true);
      replica.resetReplication();
      replica.setReadOnly(false);
      primary.replicateFrom(replica);
      replica.execute("INSERT INTO appdb.writes VALUES (1000000, NOW(6))");
      primary.awaitCaughtUpWith(replica, Duration.ofSeconds(10));
      assertThat(DatabaseCluster.writtenIds(primary)).contains(1000000L);
      assertThat(GtidSet.parse(primary.gtidExecuted())).isEqualTo(GtidSet.parse(replica.gtidExecuted()));
      assertThat(primary.replicaStatus().running()).isTrue();
      assertThat(primary.replicaStatus().sourcePort()).isEqualTo(replica.port());
    }
    for (ProcessHandle process : processes) {
      assertThat(process.isAlive()).as("%s after close", process).isFalse();
    }
    for (Path datadir : datadirs) {
      assertThat(Files.exists(datadir)).as("%s after close", datadir).isFalse();
    }
  }

  @Test
  void aStoppedServerRestartsOnItsDatadirAndPort() {
    try (MySqlServer server = MySqlServer.start(Path.of("target", "it-mysql"), "restarted")) {
      LOG.info("MEASURE one MySQL server started in {} ms", server.startupTime().toMillis());
      server.execute("CREATE DATABASE appdb", "CREATE TABLE appdb.t (id INT PRIMARY KEY)",
          "INSERT INTO appdb.t VALUES (1)");
      int port = server.port();
      String gtid = server.gtidExecuted();
      server.kill9();
      server.restart();
      assertThat(server.port()).isEqualTo(port);
      assertThat(server.gtidExecuted()).isEqualTo(gtid);
      assertThat(server.queryLong("SELECT COUNT(*) FROM appdb.t")).isEqualTo(1);
    }
  }

  private static String autoPosition(DatabaseServer replica) throws SQLException {
    try (Connection connection = replica.adminConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW REPLICA STATUS")) {
      assertThat(rows.next()).isTrue();
      return rows.getString("Auto_Position");
    }
  }
}
