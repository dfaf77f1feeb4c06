package io.shipstream.failover.dev.faults;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The split-brain invariant: every 50 ms, which servers take writes. Each server is probed by its
 * own thread over a kept connection with 300 ms timeouts, so a frozen (SIGSTOPped) or dead server
 * delays nobody else's samples. A judge thread counts the writable servers every 50 ms and keeps
 * the worst moment. It counts a server only while its last answer is recent (100 ms: two probe
 * periods): a server that stopped answering cannot acknowledge a write, and an old answer says
 * nothing about now. (A 200 ms window once let a primary's last "writable" from just before its
 * fence and SIGSTOP overlap the target's promotion 150 ms later: a false split brain.)
 */
public final class WritableWatch implements AutoCloseable {
  private static final long PERIOD_MS = 50;
  private static final long FRESH_NANOS = Duration.ofMillis(100).toNanos();

  private final List<Probe> probes = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger most = new AtomicInteger();
  private final AtomicInteger samples = new AtomicInteger();
  private final AtomicReference<String> firstOverlap = new AtomicReference<>();
  private final long startNanos = System.nanoTime();
  private final List<Thread> threads = new ArrayList<>();

  private WritableWatch(Map<String, DatabaseServer> servers) {
    servers.forEach((site, server) -> probes.add(new Probe(site, server)));
  }

  public static WritableWatch start(Map<String, DatabaseServer> servers) {
    WritableWatch watch = new WritableWatch(servers);
    for (Probe p : watch.probes) {
      watch.threads.add(daemon("writable-probe-" + p.site, () -> watch.probeLoop(p)));
    }
    watch.threads.add(daemon("writable-judge", watch::judgeLoop));
    return watch;
  }

  /** The most servers writable in one sample. */
  public int most() {
    return most.get();
  }

  public int samples() {
    return samples.get();
  }

  /** When two or more were first writable at once, and which; null if never. */
  public String firstOverlap() {
    return firstOverlap.get();
  }

  private void judgeLoop() {
    while (running.get()) {
      long now = System.nanoTime();
      List<String> writable = new ArrayList<>();
      for (Probe p : probes) {
        Sample s = p.last.get();
        if (s != null && s.writable && now - s.nanos < FRESH_NANOS) {
          writable.add(p.site);
        }
      }
      samples.incrementAndGet();
      most.accumulateAndGet(writable.size(), Math::max);
      if (writable.size() > 1) {
        firstOverlap.compareAndSet(null, String.join("+", writable) + " at +" + (now - startNanos) / 1_000_000 + " ms");
      }
      sleep(PERIOD_MS);
    }
  }

  private void probeLoop(Probe p) {
    Connection connection = null;
    while (running.get()) {
      long started = System.nanoTime();
      try {
        if (connection == null) {
          connection = p.server.connect(MariaDbServer.ADMIN, Duration.ofMillis(300), Duration.ofMillis(300));
        }
        try (Statement st = connection.createStatement();
            ResultSet rs = st.executeQuery("SELECT @@global.read_only")) {
          rs.next();
          p.last.set(new Sample(System.nanoTime(), rs.getInt(1) == 0));
        }
      } catch (SQLException | RuntimeException e) {
        // Down, frozen or refusing: it takes no writes now. Reconnect on the next round.
        p.last.set(new Sample(System.nanoTime(), false));
        close(connection);
        connection = null;
      }
      long spent = (System.nanoTime() - started) / 1_000_000;
      sleep(Math.max(0, PERIOD_MS - spent));
    }
    close(connection);
  }

  @Override
  public void close() {
    running.set(false);
    for (Thread t : threads) {
      try {
        t.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private record Sample(long nanos, boolean writable) {}

  private static final class Probe {
    final String site;
    final DatabaseServer server;
    final AtomicReference<Sample> last = new AtomicReference<>();

    Probe(String site, DatabaseServer server) {
      this.site = site;
      this.server = server;
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException | RuntimeException ignored) {
        // Already broken.
      }
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
