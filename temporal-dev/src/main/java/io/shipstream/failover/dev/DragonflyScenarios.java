package io.shipstream.failover.dev;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.RedisServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** The playground's session-store scenario: the store moves with a planned failover. */
final class DragonflyScenarios {
  private DragonflyScenarios() {}

  /**
   * iad -> pdx with a Redis pair beside MySQL, both under write load: the store master moves to
   * pdx first (FAILOVER), then MySQL; every session acknowledged through the active store is on
   * the new master, and the old one follows it.
   */
  static Verdict dragonflySwitchover(FailoverStack stack, PrintStream out) {
    Path dir = tempDir();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      RedisPair stores = stack.startRedisPair(dir, "5s", "proceed");
      out.printf("session store: redis-server iad %s (master), pdx %s (replica); spec.dragonfly enabled, flavor "
          + "redis, maxSyncWait 5s, onSyncTimeout proceed%n", stores.server("iad").uri(), stores.server("pdx").uri());
      SessionWriter sessions = SessionWriter.start(stores);
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      sessions.awaitAcknowledged(200);
      out.printf("writers: %d rows through mysql-orders-primary, %d sessions through the store pod labelled "
          + "traffic=active%n", load.acknowledgedCount(), sessions.acknowledged.size());
      PlannedFailoverStatus s = Playground.watch(stack, new Timeline(out), "pdx", Duration.ofSeconds(60));
      sessions.awaitAcknowledged(sessions.acknowledged.size() + 200);
      sessions.stop();
      load.awaitAcknowledged(load.acknowledgedCount() + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      RedisServer pdx = stores.server("pdx");
      long missingSessions = sessions.acknowledged.stream().filter(k -> pdx.command("GET", k) == null).count();
      long missingRows = Playground.missing(stack, load, "pdx");
      out.printf("store pods: iad %s, pdx %s%n", labels(stores, "iad"), labels(stores, "pdx"));
      out.printf("sessions: %d acknowledged, %d failed attempts (while no store was active or iad refused), "
          + "%d missing on the new master pdx; iad replicates from pdx: %s%n", sessions.acknowledged.size(),
          sessions.errors, missingSessions, stores.replicates("iad", "pdx"));
      out.printf("rows: %d acknowledged, %d missing on the new primary pdx%n", load.acknowledgedCount(), missingRows);
      boolean ok = "Succeeded".equals(s.phase()) && Boolean.TRUE.equals(s.dragonfly().sessionsPreserved())
          && missingSessions == 0 && missingRows == 0 && stores.masterSite().equals(Optional.of("pdx"))
          && stores.replicates("iad", "pdx") && "active".equals(labels(stores, "pdx").get("shipstream.io/traffic"));
      return new Verdict(ok, ok ? String.format("store moved by %s in %.3f s sync wait, then MySQL; %d sessions and "
          + "%d rows, none lost", s.dragonfly().promotionMethod(), s.dragonfly().syncWaitSeconds(),
          sessions.acknowledged.size(), load.acknowledgedCount())
          : "expected Succeeded with sessionsPreserved and nothing missing, got " + s.phase() + "/" + s.reason()
              + " " + s.dragonfly() + ", " + missingSessions + " sessions and " + missingRows + " rows missing");
    } finally {
      Playground.deleteQuietly(dir);
    }
  }

  private static Map<String, String> labels(RedisPair stores, String site) {
    Map<String, String> all = stores.podLabels(site);
    return Map.of("shipstream.io/store-role", String.valueOf(all.get("shipstream.io/store-role")),
        "shipstream.io/traffic", String.valueOf(all.get("shipstream.io/traffic")));
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("playground-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * An application writing a session every few milliseconds to the store its active Service
   * routes to: the pod labelled traffic=active, looked up again after every failed write.
   */
  private static final class SessionWriter {
    final List<String> acknowledged = new CopyOnWriteArrayList<>();
    volatile long errors;
    private final RedisPair stores;
    private BackgroundLoop loop;
    /** The loop's own state: the next session's number and the store it writes to (null: look it up). */
    private long n;
    private String active;

    private SessionWriter(RedisPair stores) {
      this.stores = stores;
    }

    static SessionWriter start(RedisPair stores) {
      SessionWriter writer = new SessionWriter(stores);
      writer.loop = BackgroundLoop.start("session-writer", writer::writeOne, 2);
      return writer;
    }

    private void writeOne() {
      try {
        if (active == null) {
          active = activeSite(stores);
        }
        String key = "session:" + n;
        if (active != null && "OK".equals(stores.server(active).command("SET", key, "user-" + n))) {
          acknowledged.add(key);
        } else {
          errors++;
        }
      } catch (RuntimeException e) {
        errors++;
        active = null;
      }
      n++;
    }

    private static String activeSite(RedisPair stores) {
      for (String site : List.of("iad", "pdx")) {
        if ("active".equals(stores.podLabels(site).get("shipstream.io/traffic"))) {
          return site;
        }
      }
      return null;
    }

    void awaitAcknowledged(int count) {
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (acknowledged.size() < count && System.nanoTime() < until) {
        Playground.sleep(10);
      }
    }

    void stop() {
      loop.stop();
    }
  }
}
