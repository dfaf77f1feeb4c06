package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.testsupport.ClusterPerFlavor;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What the sidecar reads of a real server of each flavor (mysqld 9.7, mariadbd): where its
 * read_only came from, and its process as /proc shows it, frozen, killed and restarted. One
 * primary and replica per flavor, started by the first test of that flavor and shared by the rest.
 * MySQL's run with the performance schema off, as the test launcher starts them to save memory:
 * the variables_info table the sidecar reads read_only's origin from answers all the same.
 */
class LocalServerIT {
  private static final ClusterPerFlavor CLUSTERS = new ClusterPerFlavor(Path.of("target", "it-local-server"), 2);
  private DatabaseServer primary;
  private DatabaseServer replica;

  /** The first step of every test: the flavor's pair, started once per class. */
  private void start(Flavor flavor) {
    DatabaseCluster cluster = CLUSTERS.of(flavor);
    primary = cluster.primary();
    replica = cluster.replicas().get(0);
  }

  @AfterAll
  static void stop() {
    CLUSTERS.close();
  }

  @FlavorTest
  void tellsAStartUpReadOnlyFromAFenceAndAServerConfiguredToStartWritable(Flavor flavor) {
    start(flavor);
    JdbcLocalMysql local = local(primary);
    primary.setReadOnly(false);
    primary.restart();
    assertThat(local.state()).isEqualTo(MysqlState.WRITABLE);
    assertThat(local.flavor()).as("the dialect the server's version picked").isEqualTo(
        flavor == Flavor.MYSQL ? "MySQL" : "MariaDB");
    assertThat(local.startsReadOnly()).as("no read_only in its configuration").contains(false);

    if (flavor == Flavor.MYSQL) {
      // Off, as the launcher starts it: variables_info, where the origin is read, answers all the same.
      assertThat(primary.queryLong("SELECT @@global.performance_schema")).isZero();
    }

    primary.restartFenced();
    assertThat(local.state()).as("read_only from the command line, untouched, no replication")
        .isEqualTo(MysqlState.STARTUP_READ_ONLY);
    assertThat(local.startsReadOnly()).contains(true);

    primary.setReadOnly(false);
    primary.setReadOnly(true);
    assertThat(local.state()).as("a fence anybody applied since").isEqualTo(MysqlState.READ_ONLY);
    assertThat(local.startsReadOnly()).as("still known from before").contains(true);

    // The original primary again, writable, for the other tests.
    primary.restart();
    assertThat(local.state()).isEqualTo(MysqlState.WRITABLE);
  }

  @FlavorTest
  void aReplicaStartedReadOnlyIsNeverTakenForARestartedPrimary(Flavor flavor) {
    start(flavor);
    replica.restartFenced();
    assertThat(local(replica).state()).as("it replicates from the primary").isEqualTo(MysqlState.READ_ONLY);
  }

  @FlavorTest
  void findsTheServersProcessAndStopsItWhenFrozen(Flavor flavor) {
    start(flavor);
    DatabaseServer server = replica;
    ServerProcess process = ServerProcess.onThisHost(server.port());
    process.refresh();
    assertThat(process.known()).map(ServerProcess.Pid::pid).contains(server.pid());
    assertThat(process.liveness()).isEqualTo(ServerProcess.Liveness.ALIVE);

    long started = System.nanoTime();
    server.pause();
    assertThat(local(server).state()).as("a frozen server does not answer").isEqualTo(MysqlState.UNREACHABLE);
    Duration probe = Duration.ofNanos(System.nanoTime() - started);
    assertThat(process.kernelState()).contains('T');
    assertThat(process.liveness()).as("frozen is not dead").isEqualTo(ServerProcess.Liveness.ALIVE);

    assertThat(process.stop(Duration.ofSeconds(5))).isTrue();
    assertThat(process.liveness()).isEqualTo(ServerProcess.Liveness.EXITED);
    // A zombie counts as exited; the JVM that started the server reaps it a moment later.
    long reaped = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (server.isRunning() && System.nanoTime() < reaped) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    assertThat(server.isRunning()).isFalse();
    System.out.printf("a look at the frozen server gave up after %d ms%n", probe.toMillis());

    server.restartFenced();
    process.refresh();
    assertThat(process.known()).map(ServerProcess.Pid::pid).contains(server.pid());
    server.replicateFrom(primary);
  }

  @Test
  void aPortNobodyServesHasNoServerProcess() {
    ServerProcess nobody = ServerProcess.onThisHost(65_000);
    nobody.refresh();
    assertThat(nobody.known()).isEqualTo(Optional.empty());
  }

  private static JdbcLocalMysql local(DatabaseServer server) {
    return new JdbcLocalMysql(server.host(), server.port(), MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
        Set.of());
  }
}
