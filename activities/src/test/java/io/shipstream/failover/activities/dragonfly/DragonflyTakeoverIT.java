package io.shipstream.failover.activities.dragonfly;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.lifecycle.Startables;

/**
 * REPLTAKEOVER against real Dragonfly servers in containers: the flavor is detected, the replica
 * catches up and takes over with every key. Dragonfly cannot be installed on the build machine, so
 * this runs only where Docker does and is skipped as a whole elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class DragonflyTakeoverIT {
  static final String IMAGE = "docker.dragonflydb.io/dragonflydb/dragonfly:v1.33.1";
  static final GroupRef GROUP = new GroupRef("shop", "orders");

  static Network network;
  static GenericContainer<?> master;
  static GenericContainer<?> replica;
  static StoreConnections connections;
  static DragonflyActivitiesImpl activities;

  @BeforeAll
  static void start() {
    network = Network.newNetwork();
    master = dragonfly("master");
    replica = dragonfly("replica");
    Startables.deepStart(master, replica).join();
    connections = new StoreConnections();
    activities = new DragonflyActivitiesImpl(connections, Clock.systemUTC(), Heartbeat.NONE);
  }

  @AfterAll
  static void stop() {
    if (connections != null) {
      connections.close();
    }
    for (GenericContainer<?> c : new GenericContainer<?>[] {replica, master}) {
      if (c != null) {
        c.stop();
      }
    }
    if (network != null) {
      network.close();
    }
  }

  static GenericContainer<?> dragonfly(String alias) {
    return new GenericContainer<>(IMAGE).withNetwork(network).withNetworkAliases(alias).withExposedPorts(6379)
        .withCommand("--proactor_threads=2", "--dbfilename=");
  }

  static StoreTarget target(String site, GenericContainer<?> c) {
    return new StoreTarget(GROUP, site, c.getHost(), c.getMappedPort(6379));
  }

  @Test
  void replTakeoverMovesTheMasterWithEveryKey() {
    StoreTarget iad = target("iad", master);
    StoreTarget pdx = target("pdx", replica);
    // The replica reaches its master over the containers' network, by alias.
    activities.replicateFrom(pdx, new StoreTarget(GROUP, "iad", "master", 6379));
    try (var c = connections.open(iad)) {
      for (int i = 0; i < 100; i++) {
        c.sync().set("session:" + i, "user-" + i);
      }
    }
    long offset = activities.captureOffset(iad);
    activities.waitForOffset(pdx, offset, Instant.now().plusSeconds(30));

    Promotion promotion = activities.promote(pdx, iad, Duration.ofSeconds(10));

    assertThat(promotion.flavor()).isEqualTo("dragonfly");
    assertThat(promotion.method()).isEqualTo("REPLTAKEOVER");
    StoreState after = activities.inspect(pdx);
    assertThat(after.isMaster()).isTrue();
    try (var c = connections.open(pdx)) {
      assertThat(c.sync().dbsize()).isEqualTo(100);
      assertThat(c.sync().get("session:99")).isEqualTo("user-99");
    }
  }
}
