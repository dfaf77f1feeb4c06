package io.shipstream.failover.activities.dragonfly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.testsupport.RedisServer;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lettuce activities against two real redis-server processes replicating: what each call
 * does to the servers, read back with plain RESP, not through the code under test.
 */
class DragonflyActivitiesIT {
  static final GroupRef GROUP = new GroupRef("shop", "orders");

  @TempDir
  Path work;
  RedisServer iad;
  RedisServer pdx;
  StoreConnections connections;
  DragonflyActivitiesImpl activities;

  @BeforeEach
  void start() {
    iad = RedisServer.start(work);
    pdx = RedisServer.start(work, iad);
    connections = new StoreConnections();
    activities = new DragonflyActivitiesImpl(connections, Clock.systemUTC(), Heartbeat.NONE);
    awaitLinkUp(pdx);
  }

  @AfterEach
  void stop() {
    connections.close();
    pdx.close();
    iad.close();
  }

  static StoreTarget target(String site, RedisServer server) {
    return new StoreTarget(GROUP, site, server.host(), server.port());
  }

  @Test
  void inspectReadsFlavorRoleAndOffsets() {
    StoreState master = activities.inspect(target("iad", iad));
    StoreState replica = activities.inspect(target("pdx", pdx));
    assertThat(master.flavor()).isEqualTo("redis");
    assertThat(master.isMaster()).isTrue();
    assertThat(replica.isReplica()).isTrue();
    assertThat(replica.linkUp()).isTrue();
    assertThat(replica.masterPort()).isEqualTo(iad.port());
    assertThat(activities.inspect(new StoreTarget(GROUP, "dr", "127.0.0.1", 1)).reachable()).isFalse();
  }

  @Test
  void failoverMovesTheMasterWithEveryKeyAndTheOldMasterFollows() {
    for (int i = 0; i < 200; i++) {
      iad.command("SET", "session:" + i, "user-" + i);
    }
    long offset = activities.captureOffset(target("iad", iad));
    assertThat(offset).isPositive();
    activities.waitForOffset(target("pdx", pdx), offset, Instant.now().plusSeconds(10));

    Promotion promotion = activities.promote(target("pdx", pdx), target("iad", iad), Duration.ofSeconds(5));

    assertThat(promotion.method()).isEqualTo("FAILOVER");
    assertThat(pdx.command("INFO", "replication")).contains("role:master");
    assertThat(iad.command("INFO", "replication")).contains("role:slave").contains("master_port:" + pdx.port());
    assertThat(pdx.command("GET", "session:199")).isEqualTo("user-199");
    assertThat(pdx.command("DBSIZE")).isEqualTo("200");
    // A retry after the takeover reports instead of failing.
    assertThat(activities.promote(target("pdx", pdx), target("iad", iad), Duration.ofSeconds(5)).method())
        .isEqualTo("FAILOVER");
  }

  @Test
  void aReplicaCutOffFromItsMasterTimesOutAndIsPromotedAlone() {
    pdx.command("REPLICAOF", "127.0.0.1", "1");
    iad.command("SET", "late", "1");
    long offset = activities.captureOffset(target("iad", iad));
    assertThatThrownBy(() -> activities.waitForOffset(target("pdx", pdx), offset, Instant.now().plusMillis(300)))
        .isInstanceOf(ApplicationFailure.class)
        .satisfies(e -> assertThat(((ApplicationFailure) e).getType()).isEqualTo("DragonflySyncTimeout"));
    assertThatThrownBy(() -> activities.promote(target("pdx", pdx), target("iad", iad), Duration.ofSeconds(1)))
        .satisfies(e -> assertThat(((ApplicationFailure) e).getType()).isEqualTo("DragonflyPromotionFailed"));
    assertThat(iad.command("INFO", "replication")).as("the failed takeover leaves the master").contains("role:master");

    Promotion alone = activities.promoteAlone(target("pdx", pdx));
    activities.replicateFrom(target("iad", iad), target("pdx", pdx));

    assertThat(alone.method()).isEqualTo("REPLICAOF NO ONE");
    assertThat(pdx.command("INFO", "replication")).contains("role:master");
    assertThat(iad.command("INFO", "replication")).contains("role:slave");
  }

  @Test
  void killClientsDisconnectsApplicationsButNotReplication() throws Exception {
    try (var app = new java.net.Socket(iad.host(), iad.port())) {
      awaitClients(iad, 1);
      assertThat(activities.killClients(target("iad", iad))).isEqualTo(1);
      assertThat(pdx.command("INFO", "replication")).contains("master_link_status:up");
    }
  }

  @Test
  void theFreshestReplicaIsPromotedWhenTheMasterIsDead() {
    iad.command("SET", "k", "v");
    awaitKey(pdx, "k");
    iad.kill9();
    Promotion promotion = activities.promoteFreshestReplica(List.of(target("iad", iad), target("pdx", pdx)), "pdx");
    assertThat(promotion.site()).isEqualTo("pdx");
    assertThat(promotion.method()).isEqualTo("REPLICAOF NO ONE");
    assertThat(pdx.command("GET", "k")).isEqualTo("v");
  }

  static void awaitLinkUp(RedisServer replica) {
    long until = System.nanoTime() + 10_000_000_000L;
    while (!replica.command("INFO", "replication").contains("master_link_status:up")) {
      assertThat(System.nanoTime()).as("link up within 10 s").isLessThan(until);
      Takeover.sleep(20);
    }
  }

  static void awaitKey(RedisServer server, String key) {
    long until = System.nanoTime() + 10_000_000_000L;
    while (server.command("GET", key) == null) {
      assertThat(System.nanoTime()).as(key + " replicated within 10 s").isLessThan(until);
      Takeover.sleep(20);
    }
  }

  static void awaitClients(RedisServer server, int normal) {
    long until = System.nanoTime() + 5_000_000_000L;
    // CLIENT LIST TYPE normal counts this RESP connection too.
    while (server.command("CLIENT", "LIST", "TYPE", "normal").split("\n").length < normal + 1) {
      assertThat(System.nanoTime()).isLessThan(until);
      Takeover.sleep(20);
    }
  }
}
