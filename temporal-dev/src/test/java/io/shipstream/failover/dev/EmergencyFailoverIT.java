package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill -9 of the primary with the topology monitor on: three real mariadbd sites (iad primary,
 * pdx, dr-only dr), polled every 500ms, dead after 3 missed polls. What a user sees: the active
 * site moves to the replica, the application's writes through the primary Service resume, no two
 * servers were ever writable at once, and nothing acknowledged and replicated before the kill is
 * missing on the new primary.
 */
class EmergencyFailoverIT {
  @TempDir
  static Path work;
  static FailoverStack stack;

  @BeforeAll
  static void start() {
    stack = FailoverStack.start(work, FailoverStack.Options.emergency());
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aKilledPrimaryIsReplacedByTheFreshestReplicaWithoutLosingReplicatedWrites() throws Exception {
    AtomicInteger mostWritable = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        int writable = 0;
        for (MariaDbServer s : stack.servers().values()) {
          try {
            if (s.isRunning() && !s.isReadOnly()) {
              writable++;
            }
          } catch (RuntimeException e) {
            // Not answering: not writable.
          }
        }
        mostWritable.accumulateAndGet(writable, Math::max);
        sleep(50);
      }
    }, "writable-sampler");
    sampler.setDaemon(true);
    sampler.start();

    try (WriteLoad load = WriteLoad.start(EmergencyFailoverIT::routedOrNowhere)) {
      load.awaitAcknowledged(200, Duration.ofSeconds(30));
      MariaDbServer iad = stack.server("iad");
      stack.server("pdx").awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      stack.server("dr").awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      // What the replicas hold right now was acknowledged and replicated before the kill.
      Set<Long> replicated = new HashSet<>(MariaDbCluster.writtenIds(stack.server("pdx")));
      replicated.addAll(MariaDbCluster.writtenIds(stack.server("dr")));
      int ackedAtKill = load.acknowledgedCount();
      long killedAt = System.nanoTime();
      iad.kill9();

      String active = awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60));
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));
      long firstAfter = load.acks().stream().filter(a -> a.nanos() > killedAt).mapToLong(WriteLoad.Ack::nanos)
          .min().orElseThrow();
      System.out.printf("kill -9 to first acknowledged write on %s: %d ms%n", active,
          Duration.ofNanos(firstAfter - killedAt).toMillis());

      assertThat(active).as("dr is dr-only; pdx is the freshest primary-candidate").isEqualTo("pdx");
      assertThat(stack.routedSite()).contains("pdx");
      List<Long> onNewPrimary = MariaDbCluster.writtenIds(stack.server("pdx"));
      assertThat(onNewPrimary).containsAll(new ArrayList<>(replicated));
    } finally {
      sampling.set(false);
      sampler.join(5_000);
    }
    assertThat(mostWritable.get()).as("writable servers at any 50ms sample").isLessThanOrEqualTo(1);
    assertThat(stack.resource().getStatus().sites()).extracting(MysqlFailoverGroupStatus.SiteStatus::name,
        MysqlFailoverGroupStatus.SiteStatus::state).contains(org.assertj.core.groups.Tuple.tuple("iad", "UNREACHABLE"));
  }

  private static String routedOrNowhere() {
    try {
      return stack.routedJdbcUrl();
    } catch (IllegalStateException e) {
      // Nothing routed for a moment during the failover: the write fails and is retried.
      return "jdbc:mariadb://127.0.0.1:1/";
    }
  }

  private static String awaitActiveSiteOtherThan(String old, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      MysqlFailoverGroupStatus status = stack.resource().getStatus();
      if (status != null && status.activeSite() != null && !status.activeSite().equals(old)) {
        return status.activeSite();
      }
      sleep(50);
    }
    throw new AssertionError("status.activeSite still '" + old + "' after " + timeout + ": "
        + stack.resource().getStatus());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
