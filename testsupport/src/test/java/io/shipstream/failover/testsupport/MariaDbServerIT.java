package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MariaDbServerIT {
  private static final Path BASE = Path.of("target", "it-mariadb");
  private static MariaDbServer server;

  @BeforeAll
  static void startServer() {
    server = MariaDbServer.start(BASE);
    server.execute("CREATE DATABASE IF NOT EXISTS appdb", "CREATE TABLE appdb.t (id INT PRIMARY KEY)");
  }

  @AfterAll
  static void closeServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void startsFastWithTheAccountsAndNoGtidsOfItsOwn() {
    // The template is made once per JVM; a server copied from it starts in well under 5 s here.
    assertThat(server.startupTime()).isLessThan(Duration.ofSeconds(10));
    assertThat(server.queryString("SELECT VERSION()")).contains("MariaDB");
    assertThat(server.queryLong("SELECT COUNT(*) FROM mysql.user WHERE user IN ('failover', 'app', 'repl')"))
        .isEqualTo(5);
    // Only the two statements above are in the binlog: creating the accounts left no GTID.
    assertThat(server.gtidBinlogPos()).isEqualTo("0-" + server.serverId() + "-2");
    assertThat(server.queryString("SELECT @@global.gtid_strict_mode")).isEqualTo("1");
    assertThat(server.queryString("SELECT @@global.binlog_format")).isEqualTo("ROW");
    assertThat(server.queryString("SELECT @@global.log_slave_updates")).isEqualTo("1");
  }

  @Test
  void readOnlyBindsTheApplicationButNotTheAdmin() throws SQLException {
    server.setReadOnly(true);
    try (Connection app = server.appConnection();
        Statement statement = app.createStatement()) {
      assertThatThrownBy(() -> statement.executeUpdate("INSERT INTO appdb.t VALUES (1)"))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(1290));
      server.execute("INSERT INTO appdb.t VALUES (2)");
    } finally {
      server.setReadOnly(false);
    }
    try (Connection app = server.appConnection();
        Statement statement = app.createStatement()) {
      assertThat(statement.executeUpdate("INSERT INTO appdb.t VALUES (3)")).isEqualTo(1);
      assertThatThrownBy(() -> statement.execute("CREATE DATABASE other")).isInstanceOf(SQLException.class);
    }
  }

  @Test
  void aPausedServerTimesOutAndAResumedOneAnswers() throws SQLException {
    server.pause();
    try {
      long started = System.nanoTime();
      assertThatThrownBy(
          () -> server.connect(MariaDbServer.ADMIN, Duration.ofMillis(500), Duration.ofMillis(500)).close())
          .isInstanceOf(SQLException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    } finally {
      server.resume();
    }
    try (Connection admin = server.adminConnection()) {
      assertThat(admin.isValid(2)).isTrue();
    }
  }

  @Test
  void restartKeepsDataAndPortAndSurvivesAKill() {
    int port = server.port();
    server.execute("INSERT INTO appdb.t VALUES (100)");
    server.kill9();
    assertThat(server.isRunning()).isFalse();
    server.restart();
    assertThat(server.port()).isEqualTo(port);
    assertThat(server.queryLong("SELECT COUNT(*) FROM appdb.t WHERE id = 100")).isEqualTo(1);
    server.stop();
    server.restart();
    assertThat(server.queryLong("SELECT COUNT(*) FROM appdb.t WHERE id = 100")).isEqualTo(1);
  }

  @Test
  void closeLeavesNoProcessBehindEvenWhenPaused() {
    MariaDbServer other = MariaDbServer.start(BASE, "short-lived");
    long pid = other.pid();
    other.pause();
    other.close();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }

  @Test
  void aServerStartedFromAShortLivedThreadOutlivesThatThread() throws InterruptedException {
    // The kernel's parent-death signal follows the thread that forked; the launcher thread keeps
    // it from firing when a test's own thread ends.
    MariaDbServer[] started = new MariaDbServer[1];
    Thread starter = new Thread(() -> started[0] = MariaDbServer.start(BASE, "from-thread"));
    starter.start();
    starter.join();
    try (MariaDbServer other = started[0]) {
      Thread.sleep(300);
      assertThat(other.isRunning()).isTrue();
      assertThat(other.queryString("SELECT 1")).isEqualTo("1");
    }
  }

  @Test
  void missingBinaryIsReportedWithAnInstallHint() {
    assertThat(Binaries.find("no-such-binary-anywhere")).isEmpty();
    assertThat(Binaries.mariadbd().getFileName().toString()).isEqualTo("mariadbd");
  }
}
