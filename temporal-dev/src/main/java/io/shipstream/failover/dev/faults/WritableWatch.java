package io.shipstream.failover.dev.faults;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The split-brain invariant: which servers take writes, asked of each every 50 ms by its own
 * thread over a kept connection with 300 ms timeouts (so a frozen or dead server delays nobody
 * else's answers), and judged from every answer with the instant it was asked and the instant it
 * came back.
 *
 * <p>An answer says what the server was at one unknown instant between those two, nothing about
 * the time after. So a server counts as writable only between two answers that both said so,
 * with nothing else in between: from the moment the first came back to the moment the last was
 * asked (a run of such answers is one span). Two servers are writable at once only where their
 * spans overlap; that is proven, not inferred. A server that stopped answering (frozen, dead,
 * refusing) ends its span: it cannot acknowledge a write. The assumption is the one any sampler
 * makes, that a server does not change twice between two answers 50 ms apart; the price is the
 * resolution: two writable servers for less than about two probe periods (~100 ms) may go unseen.
 *
 * <p>Why not "the last answer, if recent": the planned failover fences the source, starts the lag
 * gate and promotes the target in well under 100 ms on a quiet machine, and the suite SIGSTOPs
 * the source as the lag gate starts. The source's last answer, "writable", was asked just before
 * its fence; the next probe then hung on the frozen server, so that answer stayed its last for
 * 300 ms. Counted as current for 100 ms after it came back (200 ms before that), it overlapped the
 * target's first "writable" and reported a split brain that never was: the source was read-only
 * before the lag gate started ({@code source-sigstop-lag-wait-through-promotion}, issue 30).
 */
public final class WritableWatch implements AutoCloseable {
  private static final long PERIOD_MS = 50;
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private final Map<String, Probe> probes = new LinkedHashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final long startNanos = System.nanoTime();
  private final List<Thread> threads = new ArrayList<>();

  private WritableWatch(Map<String, DatabaseServer> servers) {
    servers.forEach((site, server) -> probes.put(site, new Probe(site, server)));
  }

  public static WritableWatch start(Map<String, DatabaseServer> servers) {
    WritableWatch watch = new WritableWatch(servers);
    for (Probe p : watch.probes.values()) {
      watch.threads.add(daemon("writable-probe-" + p.site, () -> watch.probeLoop(p)));
    }
    return watch;
  }

  /** What a server said: writable, read-only, or nothing within the timeout. */
  public enum Reading {
    WRITABLE, READ_ONLY, NONE
  }

  /** One answer: asked at {@code askedMillis}, back at {@code backMillis}, both since the watch started. */
  public record Answer(double askedMillis, double backMillis, Reading reading) {}

  /**
   * What the answers show: the most servers writable at one instant, the first instant two were
   * (null if never), and, when none overlapped, the closest hand-over from one server to another.
   */
  public record Verdict(int most, String firstOverlap, String closestHandOver, int answers) {}

  /** The most servers writable at one instant. */
  public int most() {
    return verdict().most();
  }

  /** How many answers the servers gave (each an instant the probes looked). */
  public int samples() {
    return verdict().answers();
  }

  /** When two or more were first writable at once, and which; null if never. */
  public String firstOverlap() {
    return verdict().firstOverlap();
  }

  /** The answers so far, judged. */
  public Verdict verdict() {
    Map<String, List<Answer>> answers = new LinkedHashMap<>();
    probes.forEach((site, p) -> {
      synchronized (p.answers) {
        answers.put(site, List.copyOf(p.answers));
      }
    });
    return judge(answers);
  }

  /** Judges every server's answers, each list in the order they were asked. Pure. */
  public static Verdict judge(Map<String, List<Answer>> answers) {
    List<Span> spans = new ArrayList<>();
    int count = 0;
    for (Map.Entry<String, List<Answer>> e : answers.entrySet()) {
      count += e.getValue().size();
      spans.addAll(spans(e.getKey(), e.getValue()));
    }
    // Sweep the span edges in time order; at one instant an end goes before a start, so spans
    // that only touch never count as an overlap.
    record Edge(double at, boolean start, Span span) {}
    List<Edge> edges = new ArrayList<>();
    for (Span s : spans) {
      edges.add(new Edge(s.from(), true, s));
      edges.add(new Edge(s.until(), false, s));
    }
    edges.sort(Comparator.comparingDouble(Edge::at).thenComparing(Edge::start));
    List<Span> open = new ArrayList<>();
    int most = 0;
    String first = null;
    for (Edge edge : edges) {
      if (!edge.start()) {
        open.remove(edge.span());
        continue;
      }
      open.add(edge.span());
      most = Math.max(most, open.size());
      if (open.size() > 1 && first == null) {
        first = String.join("+", open.stream().map(Span::site).toList()) + " at +" + Math.round(edge.at()) + " ms";
      }
    }
    return new Verdict(most, first, first == null ? closestHandOver(spans) : null, count);
  }

  /** A run of at least two writable answers in a row: writable from the first's return to the last's asking. */
  private record Span(String site, Answer first, Answer last) {
    double from() {
      return first.backMillis();
    }

    double until() {
      return last.askedMillis();
    }
  }

  private static List<Span> spans(String site, List<Answer> answers) {
    List<Span> spans = new ArrayList<>();
    Answer first = null;
    Answer last = null;
    for (Answer a : answers) {
      if (a.reading() == Reading.WRITABLE) {
        if (first == null) {
          first = a;
        }
        last = a;
        continue;
      }
      if (first != null && last != first) {
        spans.add(new Span(site, first, last));
      }
      first = null;
      last = null;
    }
    if (first != null && last != first) {
      spans.add(new Span(site, first, last));
    }
    return spans;
  }

  /**
   * The tightest hand-over between two servers, by when their answers came back: the last
   * "writable" from one and the first from the next. For the suite's detail: how close the run came.
   */
  private static String closestHandOver(List<Span> spans) {
    String closest = null;
    double gap = Double.MAX_VALUE;
    for (Span before : spans) {
      for (Span after : spans) {
        double between = after.first().backMillis() - before.last().backMillis();
        if (!before.site().equals(after.site()) && between >= 0 && between < gap) {
          gap = between;
          closest = before.site() + " last answered writable at +" + Math.round(before.last().backMillis()) + " ms, "
              + after.site() + " first at +" + Math.round(after.first().backMillis()) + " ms";
        }
      }
    }
    return closest;
  }

  private void probeLoop(Probe p) {
    Connection connection = null;
    while (running.get()) {
      long started = System.nanoTime();
      long asked = started;
      Reading reading;
      try {
        if (connection == null) {
          connection = p.server.connect(MariaDbServer.ADMIN, TIMEOUT, TIMEOUT);
        }
        try (Statement st = connection.createStatement()) {
          // Asked from here: a connection opened first says nothing about the server's state.
          asked = System.nanoTime();
          try (ResultSet rs = st.executeQuery("SELECT @@global.read_only")) {
            rs.next();
            reading = rs.getInt(1) == 0 ? Reading.WRITABLE : Reading.READ_ONLY;
          }
        }
      } catch (SQLException | RuntimeException e) {
        // Down, frozen or refusing: it takes no writes now. Reconnect on the next round.
        reading = Reading.NONE;
        close(connection);
        connection = null;
      }
      long back = System.nanoTime();
      synchronized (p.answers) {
        p.answers.add(new Answer(sinceStart(asked), sinceStart(back), reading));
      }
      long spent = (back - started) / 1_000_000;
      sleep(Math.max(0, PERIOD_MS - spent));
    }
    close(connection);
  }

  private double sinceStart(long nanos) {
    return (nanos - startNanos) / 1e6;
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

  private static final class Probe {
    final String site;
    final DatabaseServer server;
    final List<Answer> answers = new ArrayList<>();

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
