package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisServerIT {
  private static final Path BASE = Path.of("target", "it-redis");

  @Test
  void aReplicaFollowsItsPrimaryAndCloseLeavesNothingBehind() {
    long primaryPid;
    long replicaPid;
    try (RedisServer primary = RedisServer.start(BASE);
        RedisServer replica = RedisServer.start(BASE, primary)) {
      primaryPid = primary.pid();
      replicaPid = replica.pid();
      assertThat(primary.command("SET", "session:1", "alice")).isEqualTo("OK");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!"alice".equals(replica.command("GET", "session:1")) && System.nanoTime() < deadline) {
        MariaDbServer.sleep(Duration.ofMillis(20));
      }
      assertThat(replica.command("GET", "session:1")).isEqualTo("alice");
      assertThat(replica.command("INFO", "replication")).contains("role:slave", "master_link_status:up");
      assertThat(primary.command("INFO", "persistence")).contains("aof_enabled:0");
      replica.pause();
    }
    assertThat(ProcessHandle.of(primaryPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(ProcessHandle.of(replicaPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }

  @Test
  void restartKeepsThePort() {
    try (RedisServer server = RedisServer.start(BASE)) {
      int port = server.port();
      server.kill9();
      assertThat(server.isRunning()).isFalse();
      server.restart();
      assertThat(server.port()).isEqualTo(port);
      assertThat(server.command("PING")).isEqualTo("PONG");
    }
  }
}
