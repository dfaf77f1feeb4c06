package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.RedisServer;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The session store moving with a planned failover, end to end: two real redis-server processes
 * replicating beside the two MariaDB sites, the mock API server, the Temporal dev server, the real
 * worker and watcher, and the failover asked for by annotation. Asserted as an operator checks it:
 * the sessions on the new master, who replicates from whom, the store pods' labels, MySQL's
 * read-only flags and the resource's status. The cases run in order on one stack.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DragonflyFailoverIT extends StackPerClass {
  static final Duration END = Duration.ofSeconds(60);

  static RedisPair stores;

  @BeforeAll
  static void start() {
    stack = FailoverStack.start(work, FailoverStack.Options.twoSites());
    stores = stack.startRedisPair(work, "2s", "proceed");
  }

  @Test
  @Order(1)
  void plannedFailoverMovesEverySessionToTheNewMaster() {
    RedisServer iad = stores.server("iad");
    for (int i = 0; i < 500; i++) {
      iad.command("SET", "session:" + i, "user-" + i);
    }

    PlannedFailoverStatus s = failOver("pdx");

    assertThat(s.phase()).isEqualTo("Succeeded");
    assertThat(s.reason()).isNull();
    assertThat(s.dragonfly().enabled()).isTrue();
    assertThat(s.dragonfly().sessionsPreserved()).isTrue();
    assertThat(s.dragonfly().promotionMethod()).isEqualTo("FAILOVER");
    assertThat(s.dragonfly().syncWaitSeconds()).isNotNull();
    RedisServer pdx = stores.server("pdx");
    assertThat(pdx.command("DBSIZE")).isEqualTo("500");
    for (int i = 0; i < 500; i++) {
      assertThat(pdx.command("GET", "session:" + i)).as("session:" + i).isEqualTo("user-" + i);
    }
    assertThat(stores.masterSite()).contains("pdx");
    assertThat(stores.replicates("iad", "pdx")).as("the old master follows the new one").isTrue();
    assertThat(stores.podLabels("pdx")).containsEntry("shipstream.io/store-role", "master")
        .containsEntry("shipstream.io/traffic", "active");
    assertThat(stores.podLabels("iad")).containsEntry("shipstream.io/store-role", "replica")
        .containsEntry("shipstream.io/traffic", "standby");
    assertThat(stack.api().client().services().inNamespace("shop").withName("dragonfly-orders-active").get()
        .getSpec().getSelector()).containsEntry("shipstream.io/traffic", "active");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(stack.server("pdx").isReadOnly()).isFalse();
    assertThat(stack.server("iad").isReadOnly()).isTrue();
  }

  @Test
  @Order(2)
  void aStoreThatCannotCatchUpWithFailRollsTheWholeFailoverBack() {
    stores.configure("2s", "fail");
    stores.cutReplicationLink("iad", "pdx");
    stores.server("pdx").command("SET", "session:late", "written after the cut");

    PlannedFailoverStatus s = failOver("iad");

    assertThat(s.phase()).isEqualTo("Failed");
    assertThat(s.reason()).isEqualTo("DragonflySyncTimeout");
    assertThat(s.message()).contains("rolled back");
    assertThat(s.dragonfly().sessionsPreserved()).isFalse();
    assertThat(stack.api().resource().getStatus().activeSite()).as("MySQL unchanged").isEqualTo("pdx");
    assertThat(stack.server("pdx").isReadOnly()).as("the source unfenced").isFalse();
    assertThat(stack.server("iad").isReadOnly()).isTrue();
    assertThat(stack.api().routedSite()).contains("pdx");
    assertThat(stores.masterSite()).as("the store unchanged").contains("pdx");
    assertThat(stores.podLabels("pdx")).containsEntry("shipstream.io/traffic", "active");
  }

  @Test
  @Order(3)
  void aStoreThatCannotCatchUpWithProceedIsPromotedAnywayAndMysqlGoesOn() {
    stores.configure("2s", "proceed");

    PlannedFailoverStatus s = failOver("iad");

    assertThat(s.phase()).isEqualTo("Succeeded");
    assertThat(s.reason()).isEqualTo("DragonflySyncTimeout");
    assertThat(s.dragonfly().sessionsPreserved()).isFalse();
    assertThat(s.dragonfly().promotionMethod()).isEqualTo("REPLICAOF NO ONE");
    assertThat(s.transactionsLost()).isZero();
    assertThat(stack.api().resource().getStatus().activeSite()).as("MySQL promoted").isEqualTo("iad");
    assertThat(stack.server("iad").isReadOnly()).isFalse();
    assertThat(stack.server("pdx").isReadOnly()).isTrue();
    assertThat(stores.masterSite()).contains("iad");
    assertThat(stores.podLabels("iad")).containsEntry("shipstream.io/store-role", "master")
        .containsEntry("shipstream.io/traffic", "active");
    assertThat(stores.podLabels("pdx")).containsEntry("shipstream.io/traffic", "standby");
    assertThat(stores.server("iad").command("GET", "session:0")).as("what it had received survives")
        .isEqualTo("user-0");
  }

  private static PlannedFailoverStatus failOver(String annotation) {
    String before = Instant.now().toString();
    stack.api().annotate(annotation);
    return stack.waits().plannedEnd(before, END);
  }
}
