package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installing the product on a running group: the group applied with no status, the watcher
 * serving /active-site but not yet adopting (its topology monitor off), the sidecars started next
 * to a primary that takes writes all the while. No sidecar may fence it at boot or after; once the
 * watcher adopts the group, the sidecars learn that iad is active and it stays writable.
 */
class NeverActiveSidecarsIT {
  @TempDir
  Path work;
  FailoverStack stack;

  @AfterEach
  void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void sidecarsStartedOnANeverActiveGroupDoNotStopTheApplicationsWrites() {
    stack = FailoverStack.start(work, FailoverStack.Options.adoptionHeld());
    MariaDbServer iad = stack.server("iad");
    AtomicBoolean everReadOnly = new AtomicBoolean();
    try (WriteLoad load = WriteLoad.start(iad::jdbcUrl, Duration.ofMillis(5))) {
      load.awaitAcknowledged(20, Duration.ofSeconds(10));
      // A fence is SET GLOBAL read_only: sampled every 20 ms, besides the writes it would fail.
      Thread watch = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            if (iad.isReadOnly()) {
              everReadOnly.set(true);
            }
          } catch (RuntimeException e) {
            // A sample that failed says nothing; the writer counts what the server refused.
          }
          Playground.sleep(20);
        }
      }, "iad-read-only-watch");
      watch.setDaemon(true);
      watch.start();
      try {
        // The sidecars boot while the watcher says the group has never had an active site.
        SidecarMesh sidecars = stack.startSidecars(SidecarMesh.Knobs.playground());
        SidecarStatus booted = sidecars.status("iad");
        assertThat(booted.neverActive()).isTrue();
        assertThat(booted.boot()).isEqualTo(Boot.DONE);
        assertThat(booted.leaseTimeout()).as("the spec's lease").isEqualTo(Duration.ofSeconds(2));

        // Five leases without adoption: the answer holds every sidecar's lease.
        Playground.sleep(10_000);
        for (String site : stack.servers().keySet()) {
          assertThat(sidecars.status(site).neverActive()).as(site).isTrue();
          assertThat(sidecars.status(site).lastFenceAt()).as(site + " fenced nothing").isEmpty();
        }
        assertThat(status().activeSite()).isNull();

        // Adopted: the view names iad, which stays the writable primary.
        stack.restartWatcherWithTopologyMonitor();
        await(() -> "iad".equals(status().activeSite()), Duration.ofSeconds(20), "iad adopted");
        await(() -> sidecars.status("iad").view().filter(v -> v.names("iad")).isPresent(), Duration.ofSeconds(10),
            "iad's sidecar names iad active");
        Playground.sleep(2_000);
        SidecarStatus adopted = sidecars.status("iad");
        assertThat(adopted.neverActive()).isFalse();
        assertThat(adopted.lastAction()).isEqualTo(Action.NONE);
        assertThat(adopted.lastFenceAt()).isEmpty();

        int acked = load.acknowledgedCount();
        load.awaitAcknowledged(acked + 20, Duration.ofSeconds(10));
      } finally {
        watch.interrupt();
      }
      assertThat(load.errors()).as("failed writes: %s", load).isZero();
      assertThat(everReadOnly).as("iad was read-only at some point").isFalse();
      assertThat(iad.isReadOnly()).isFalse();
      assertThat(stack.writableSites()).containsExactly("iad");
    }
  }

  private MysqlFailoverGroupStatus status() {
    MysqlFailoverGroupStatus s = stack.resource().getStatus();
    return s == null ? MysqlFailoverGroupStatus.empty() : s;
  }

  private static void await(BooleanSupplier condition, Duration timeout, String what) {
    long until = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Playground.sleep(50);
    }
  }
}
