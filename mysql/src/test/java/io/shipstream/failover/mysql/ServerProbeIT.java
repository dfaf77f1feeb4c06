package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watcher's poll ({@link ServerProbe}) on real servers of each flavor: a replica whose SQL
 * thread stopped on an error says so (not running, its last error), which keeps it from being
 * chosen as the emergency candidate; a healthy replica has no SQL error.
 */
class ServerProbeIT {
  @FlavorTest
  void aReplicaWhoseSqlThreadStoppedOnAnErrorShowsItInItsPoll(Flavor flavor, @TempDir Path work) throws Exception {
    try (SourceAndReplica rig = SourceAndReplica.start(flavor, work);
        MysqlSession onSource = ItSessions.open(rig.source())) {
      MysqlSession onReplica = rig.onReplica();
      ServerProbe healthy = ServerProbe.read(onReplica);
      assertThat(healthy.sqlRunning()).isTrue();
      assertThat(healthy.lastSqlError()).isNullOrEmpty();

      // A table the replica never got (created outside the binary log), then a logged write to it.
      onSource.execute("CREATE DATABASE IF NOT EXISTS probe_it");
      onSource.execute("SET SESSION sql_log_bin = 0");
      onSource.execute("CREATE TABLE probe_it.unreplicated (id INT PRIMARY KEY)");
      onSource.execute("SET SESSION sql_log_bin = 1");
      onSource.execute("INSERT INTO probe_it.unreplicated VALUES (1)");

      ServerProbe broken = ItSessions.readUntil(Duration.ofSeconds(10), () -> ServerProbe.read(onReplica),
          probe -> !Boolean.TRUE.equals(probe.sqlRunning()));
      System.out.printf("%s: %s%n", flavor, broken);
      assertThat(broken.sqlRunning()).isFalse();
      // MySQL's multi-threaded applier names the failed worker; MariaDB's the statement itself.
      assertThat(broken.lastSqlError()).isNotBlank();
      if (flavor == Flavor.MARIADB) {
        assertThat(broken.lastSqlError()).contains("unreplicated");
      }
      assertThat(broken.replicating()).isFalse();
    }
  }
}
