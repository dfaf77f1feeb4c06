package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The stack {@code ./temporal-dev/playground serve} keeps up: the playground's sites with a one
 * minute cooldown, a sidecar per site, the topology monitor (emergency failovers) and the write
 * load the scenarios use, writing through the primary Service's pod labels, and with
 * {@code --prometheus} a real prometheus scraping it ({@link StackMonitoring}). Closing it stops
 * the writer first and prints what it saw, then everything else.
 */
final class ServedStack implements AutoCloseable {
  /** Between two writes: enough rows to see a failover's gap, few enough for an afternoon's session. */
  static final Duration WRITE_PAUSE = Duration.ofMillis(20);
  /** A longer stretch without an acknowledged write is reported: well above a write's own time. */
  static final Duration GAP = Duration.ofMillis(250);

  /**
   * What {@code serve} runs besides the stack itself: the writer and the monitor unless turned off
   * by a flag, a real prometheus ({@link StackMonitoring}) only when asked for.
   */
  record Options(boolean writer, boolean monitor, boolean prometheus) {
    static final String NO_WRITER = "--no-writer";
    static final String NO_MONITOR = "--no-monitor";
    static final String PROMETHEUS = "--prometheus";

    /** The flags after {@code serve}; anything else is refused, so a typo does not go unnoticed. */
    static Options parse(List<String> flags) {
      List<String> unknown = new ArrayList<>(flags);
      unknown.removeAll(List.of(NO_WRITER, NO_MONITOR, PROMETHEUS));
      if (!unknown.isEmpty()) {
        throw new IllegalArgumentException("unknown serve flag " + String.join(" ", unknown) + "; serve takes "
            + NO_WRITER + ", " + NO_MONITOR + " and " + PROMETHEUS);
      }
      return new Options(!flags.contains(NO_WRITER), !flags.contains(NO_MONITOR), flags.contains(PROMETHEUS));
    }

    /**
     * The playground's sites with a one minute cooldown instead of five: going back and forth by
     * hand should not mean waiting, yet a too-early second request still shows CooldownActive. The
     * monitor polls as in the primary-kill scenario, so a kill -9 fails over in about two seconds.
     * The servers start read-only, as the README asks: a new user's first look is what a
     * well-configured group shows, not Degraded=True/ServerStartsWritable. TLS is on, as a
     * cross-region group should be: every session and channel is encrypted and verified.
     */
    FailoverStack.Options stack() {
      return new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "1m", null,
          monitor ? "500ms" : null, monitor ? 3 : null, monitor).withServersStartingReadOnly().withTls();
    }
  }

  private final Path work;
  private final FailoverStack stack;
  private final KubectlGateway gateway;
  private final WriteLoad load;
  private final StackMonitoring monitoring;
  private final PrintStream out;

  private ServedStack(Path work, FailoverStack stack, KubectlGateway gateway, WriteLoad load,
      StackMonitoring monitoring, PrintStream out) {
    this.work = work;
    this.stack = stack;
    this.gateway = gateway;
    this.load = load;
    this.monitoring = monitoring;
    this.out = out;
  }

  /** Starts everything in a fresh {@code work} directory and prints where to reach it. */
  static ServedStack start(Path work, Options options, PrintStream out) throws IOException {
    FileTrees.delete(work);
    Files.createDirectories(work);
    long t0 = System.nanoTime();
    FailoverStack stack = Playground.startWithSidecars(work, options.stack());
    KubectlGateway gateway = null;
    StackMonitoring monitoring = null;
    try {
      gateway = Playground.printEndpoints(stack, out, work, t0);
      Files.writeString(work.resolve("temporal-target"), stack.controlPlane().temporalTarget());
      if (options.prometheus()) {
        monitoring = StackMonitoring.start(stack, work.resolve("prometheus"));
        out.printf(
            "  prometheus %s  (Debian's, scraping the worker, the watcher and %d sidecars every second, with the "
                + "chart's alert rules: /targets, /alerts, /graph?g0.expr=bloodraven_group_condition)%n",
            monitoring.prometheus().url(), stack.servers().size());
      }
      WriteLoad load = options.writer() ? WriteLoad.start(stack::routedJdbcUrlOrNowhere, WRITE_PAUSE) : null;
      return new ServedStack(work, stack, gateway, load, monitoring, out);
    } catch (Exception e) {
      if (monitoring != null) {
        monitoring.close();
      }
      if (gateway != null) {
        gateway.close();
      }
      stack.close();
      if (e instanceof IOException io) {
        throw io;
      }
      throw e instanceof RuntimeException r ? r : new IllegalStateException("prometheus did not start: " + e, e);
    }
  }

  /** The prometheus of {@code --prometheus}. */
  Optional<StackMonitoring> monitoring() {
    return Optional.ofNullable(monitoring);
  }

  FailoverStack stack() {
    return stack;
  }

  Optional<WriteLoad> writer() {
    return Optional.ofNullable(load);
  }

  /**
   * What the writer saw, for the end of a session: the rows it wrote, its failed attempts, and
   * every stretch of more than {@link #GAP} without an acknowledged write, which is what a
   * failover looks like to an application. Read from the writer alone: Ctrl-C stops the servers at
   * the same time, so they cannot be asked for their rows any more.
   */
  String writerSummary() {
    if (load == null) {
      return "writer: off (--no-writer)";
    }
    StringBuilder b = new StringBuilder(String.format("writer: %d rows acknowledged through mysql-orders-primary, "
        + "%d failed attempts%s", load.acknowledgedCount(), load.errors(),
        load.lastError().map(e -> " (the last: " + e + ")").orElse("")));
    List<Gap> gaps = gaps(load.acks(), GAP);
    b.append(gaps.isEmpty() ? String.format("%nno write gap over %d ms", GAP.toMillis())
        : String.format("%nwrites stopped for more than %d ms %d time(s):", GAP.toMillis(), gaps.size()));
    for (Gap gap : gaps) {
      b.append(String.format("%n  %s  %d ms without an acknowledged write", LocalTime.ofInstant(gap.after(),
          ZoneId.systemDefault()).truncatedTo(ChronoUnit.MILLIS), gap.length().toMillis()));
    }
    return b.toString();
  }

  /** A stretch without an acknowledged write, starting after the acknowledgement at {@code after}. */
  record Gap(Instant after, Duration length) {}

  /** The stretches between consecutive acknowledgements longer than {@code threshold}, in order. */
  static List<Gap> gaps(List<WriteLoad.Ack> acks, Duration threshold) {
    List<Gap> gaps = new ArrayList<>();
    for (int i = 1; i < acks.size(); i++) {
      Duration between = Duration.ofNanos(acks.get(i).nanos() - acks.get(i - 1).nanos());
      if (between.compareTo(threshold) > 0) {
        gaps.add(new Gap(acks.get(i - 1).at(), between));
      }
    }
    return gaps;
  }

  /** Stops the writer and prints what it saw, then stops every process and deletes the work directory. */
  @Override
  public void close() {
    if (load != null) {
      load.stop();
      out.println(writerSummary());
    }
    if (monitoring != null) {
      monitoring.close();
    }
    gateway.close();
    stack.close();
    Playground.deleteQuietly(work);
  }
}
