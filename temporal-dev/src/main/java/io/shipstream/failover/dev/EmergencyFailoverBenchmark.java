package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Runs N emergency failovers on the embedded stack (iad, pdx, dr-only dr) under a steady writer:
 * kill -9 of the primary, then, once the monitor has promoted the other site, the killed server is
 * restarted and rejoins as a replica (RecoveryComplete), and the next run kills the new primary.
 * When the writer's last transactions on the killed server never reached the replica, the monitor
 * rightly blocks the rejoin (RecoveryBlocked); the benchmark then discards them by hand, as an
 * operator would, so one stack serves every run.
 * Every site runs a sidecar with the spec's default knobs (lease 20 s, peer check 5 s) and its URL
 * in the spec, as a production deployment does, so the failover asks the killed primary's live
 * sidecar for proof that it takes no writes before the candidate is made writable.
 * Measures kill to first write acknowledged by the new primary, kill to status.emergencyFailover
 * Succeeded, and the rows acknowledged and replicated before the kill that the new primary lacks.
 * Runs with the spec's default monitor knobs (pollInterval 2s, failureThreshold 3) twice, the
 * replicas confirming the death and, their IO threads stopped just before the kill, the debounce
 * alone; then with pollInterval 500ms, and with semi-sync. Each table ends with where the time went
 * (kill, the monitor's first failed poll, the replicas' verdict, the workflow started, the candidate
 * writable, the writer's first write), read from the watcher's log and the worker's activities by
 * {@link KillTimeline}. Numbers are printed, never asserted.
 *
 * <pre>./temporal-dev/benchmark emergency [N] [--flavor mysql,mariadb] [--only default,debounce-only,500ms,semi-sync,latency]</pre>
 *
 * On each flavor given (default: MariaDB and, where it can run, MySQL 9.7).
 */
public final class EmergencyFailoverBenchmark {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  /** The spec's defaults for spec.sidecar (MysqlFailoverGroupSpec.SidecarSpec): what production runs. */
  static final SidecarMesh.Knobs SIDECAR_KNOBS = new SidecarMesh.Knobs(Duration.ofSeconds(20), Duration.ofSeconds(5));

  private EmergencyFailoverBenchmark() {}

  /**
   * One kill. {@code oldPrimaryProof} names the Events the failover gave for the old primary's
   * guard (OldPrimaryFenceConfirmed when its sidecar answered); {@code divergentGtid} is set when
   * the monitor blocked the rejoin, with what the killed server held beyond the promotion point
   * and {@code oldOnlyRows} says which rows of this run the killed server holds that the new
   * primary lacks (whether they were acknowledged, whether dr has them): with one autocommit INSERT
   * per transaction, a legitimate RecoveryBlocked has as many such rows as divergent transactions,
   * and a rejoined server has none.
   */
  record Run(String from, String to, double killToFirstWriteMs, double killToSucceededMs, double windowMs, long lost,
      boolean repaired, String oldPrimaryProof, String divergentGtid, String promotionGtid,
      long ackedAfterKillByOldPrimary, String oldOnlyRows, long acknowledgedLost, Breakdown breakdown) {}

  /**
   * Where the time went, each in ms from the kill (-1: not seen): the monitor's first failed poll
   * of the primary began, the replicas confirmed its death, the emergency workflow was started,
   * the candidate was made writable, the writer connected to it, the first write was acknowledged.
   */
  record Breakdown(double firstFailedPoll, double confirmed, double workflowStarted, double writable,
      double writerConnected, double firstWrite) {}

  /** The semi-sync row: preferred, one acknowledgement, the servers' default 10 s timeout. */
  static final MysqlFailoverGroupSpec.SemiSyncSpec SEMI_SYNC =
      new MysqlFailoverGroupSpec.SemiSyncSpec(true, "preferred", "10s", 1, null);

  /** When the writer opened a connection and to which site: who acknowledged what follows. */
  private record Connect(long nanos, String site) {}

  public static void main(String[] args) throws IOException {
    List<String> rest = new ArrayList<>();
    List<Long> rtts = new ArrayList<>(List.of(0L));
    Set<String> only = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--remote-rtt") && i + 1 < args.length) {
        rtts = java.util.Arrays.stream(args[++i].split(",")).map(Long::valueOf).toList();
      } else if (args[i].equals("--only") && i + 1 < args.length) {
        only = Set.of(args[++i].split(","));
      } else {
        rest.add(args[i]);
      }
    }
    PlannedFailoverBenchmark.Args parsed = PlannedFailoverBenchmark.Args.parse(rest.toArray(String[]::new));
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark"));
    List<String> tables = new ArrayList<>();
    Set<String> sections = only != null ? only : Boolean.getBoolean("benchmark.semiSyncOnly")
        ? Set.of("500ms-async", "semi-sync", "latency")
        : Set.of("default", "debounce-only", "500ms", "semi-sync", "latency");
    for (Flavor flavor : parsed.flavors()) {
      if (sections.contains("default")) {
        tables.add(table(measure(work, parsed.n(), "2s", flavor), "2s (default), replicas confirm", flavor));
      }
      if (sections.contains("debounce-only")) {
        tables.add(table(measure(work, parsed.n(), "2s", flavor, null, true),
            "2s (default), debounce only (the replicas' IO threads stopped just before the kill: none can confirm;"
                + " the writes the primary acknowledged in between reach no replica, so rows are lost and the old primary"
                + " is blocked from rejoining by design of this setup)",
            flavor));
      }
      if (sections.contains("500ms")) {
        tables.add(table(measure(work, parsed.n(), "500ms", flavor), "500ms", flavor));
      }
      if (sections.contains("500ms-async")) {
        tables.add(table(measure(work, parsed.n(), "500ms", flavor, null), "500ms, asynchronous", flavor));
      }
      if (sections.contains("semi-sync")) {
        List<Run> semi = measure(work, parsed.n(), "500ms", flavor, SEMI_SYNC);
        tables.add(table(semi, "500ms, semi-sync preferred (timeout 10s, 1 ack)", flavor));
      }
      if (sections.contains("latency")) {
        tables.add(SemiSyncLatency.table(work, flavor, rtts));
      }
    }
    System.out.println();
    tables.forEach(System.out::println);
  }

  static List<Run> measure(Path work, int n, String pollInterval, Flavor flavor) throws IOException {
    return measure(work, n, pollInterval, flavor, null);
  }

  /** As above, with {@code semiSync} in the spec (null: asynchronous replication). */
  static List<Run> measure(Path work, int n, String pollInterval, Flavor flavor,
      MysqlFailoverGroupSpec.SemiSyncSpec semiSync) throws IOException {
    return measure(work, n, pollInterval, flavor, semiSync, false);
  }

  /**
   * As above; with {@code debounceOnly} the replicas' IO threads are stopped just before each kill
   * (replication a DBA stopped: no replica counts, model PrimaryConfirmation), so the debounce
   * alone decides, as before the replicas confirmed a death.
   */
  static List<Run> measure(Path work, int n, String pollInterval, Flavor flavor,
      MysqlFailoverGroupSpec.SemiSyncSpec semiSync, boolean debounceOnly) throws IOException {
    FileTrees.delete(work);
    List<Run> runs = new ArrayList<>();
    FailoverStack.Options options = new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s",
        null, pollInterval, 3, true).withFlavor(flavor);
    List<Connect> connects = new CopyOnWriteArrayList<>();
    try (KillTimeline steps = KillTimeline.listening();
        FailoverStack stack = FailoverStack.start(work, options);
        WriteLoad load = WriteLoad.start(() -> routed(stack, connects), Duration.ofMillis(2), 1)) {
      stack.startSidecars(SIDECAR_KNOBS);
      if (semiSync != null) {
        stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, semiSync));
        await(() -> {
          MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
          return s != null && s.semiSync() != null && Boolean.TRUE.equals(s.semiSync().enabled());
        }, "status.semiSync enabled");
      }
      stack.controlPlane().addWorkerInterceptor(steps);
      CallTimeline calls = new CallTimeline();
      stack.controlPlane().addWorkerInterceptor(calls);
      // The worker as the worker process runs it; see PlannedFailoverBenchmark.
      stack.controlPlane().useProductionWorkerCache();
      load.awaitAcknowledged(200, Duration.ofSeconds(20));
      // One failover and rejoin to warm the JVM up; it is not counted.
      killPrimary(stack, load, connects, debounceOnly, steps);
      for (int i = 0; i < n; i++) {
        Run run = killPrimary(stack, load, connects, debounceOnly, steps);
        runs.add(run);
        System.out.printf("pollInterval %s, run %2d %s -> %s: kill->first write %6.0f ms, kill->Succeeded %6.0f ms,"
            + " lost %d (acknowledged, any: %d), old primary %s, acked by the dying primary after the kill %d,"
            + " rows on it only %s%s%n",
            flavor + " " + pollInterval + (semiSync == null ? "" : " semi-sync")
                + (debounceOnly ? " debounce only" : ""),
            i + 1, run.from(), run.to(),
            run.killToFirstWriteMs(), run.killToSucceededMs(), run.lost(), run.acknowledgedLost(),
            run.oldPrimaryProof(), run.ackedAfterKillByOldPrimary(), run.oldOnlyRows(),
            run.repaired() ? ", RecoveryBlocked: rejoined by hand" : "");
        Breakdown b = run.breakdown();
        System.out.printf("    after the kill (ms): first failed poll of the primary %.0f, replicas confirmed %.0f,"
            + " workflow started %.0f, candidate writable %.0f, writer connected %.0f, first write %.0f%n",
            b.firstFailedPoll(), b.confirmed(), b.workflowStarted(), b.writable(), b.writerConnected(), b.firstWrite());
      }
      // The last run's emergency workflow, call by call: the failover's share of the breakdown.
      String workflowId = "mysqlfailovergroup/" + stack.api().ref().namespace() + "/" + stack.api().ref().name();
      System.out.print(calls.describe(stack.controlPlane().client(), workflowId));
    } finally {
      FileTrees.delete(work);
    }
    return runs;
  }

  /**
   * The writer's address for the next connection, as an application behind the Service gets it;
   * each answer is recorded, so that every acknowledgement can be attributed to the server the
   * connection went to (a single writer thread: every ack after a connect comes from that server
   * until the next connect).
   */
  private static String routed(FailoverStack stack, List<Connect> connects) {
    String site = stack.api().routedSite().orElseThrow(() -> new IllegalStateException("no pod is labelled primary"));
    connects.add(new Connect(System.nanoTime(), site));
    return stack.server(site).jdbcUrl();
  }

  /** Kills the active site's server, waits for the failover and for the killed server's rejoin. */
  private static Run killPrimary(FailoverStack stack, WriteLoad load, List<Connect> connects, boolean debounceOnly,
      KillTimeline steps) {
    String from = stack.api().resource().getStatus().activeSite();
    String to = "iad".equals(from) ? "pdx" : "iad";
    DatabaseServer primary = stack.server(from);
    DatabaseServer candidate = stack.server(to);
    candidate.awaitCaughtUpWith(primary, TIMEOUT);
    // What the replicas hold now was acknowledged (or about to be) and replicated before the kill.
    Set<Long> replicated = new HashSet<>(DatabaseCluster.writtenIds(candidate));
    replicated.addAll(DatabaseCluster.writtenIds(stack.server("dr")));
    int ackedAtKill = load.acknowledgedCount();
    // This run's rows start well before the kill; rows below are leftovers of earlier RecoveryBlocked runs.
    long runFloor = load.acks().get(Math.max(0, ackedAtKill - 1000)).id();
    Map<String, Integer> eventsBefore = eventCounts(stack);
    String before = Instant.now().toString();
    if (debounceOnly) {
      // Every event of the primary has reached them (the candidate caught up above; dr is not waited for).
      candidate.stopReplicaIoThread();
      stack.server("dr").stopReplicaIoThread();
    }
    long killedAt = System.nanoTime();
    long killedAtMs = System.currentTimeMillis();
    primary.kill9();

    await(() -> succeededSince(stack, before), "status.emergencyFailover Succeeded after killing " + from);
    long succeededAt = System.nanoTime();
    load.awaitAcknowledged(ackedAtKill + 20, TIMEOUT);
    // The first write the new primary acknowledged: after the writer's first connection to it since
    // the kill. An ack after the kill on the connection to the killed server is one the dying
    // server sent before the signal took effect (or that was in flight): not the new primary's.
    long connectedToNew = connects.stream().filter(c -> c.nanos() > killedAt && c.site().equals(to))
        .mapToLong(Connect::nanos).min().orElseThrow();
    if (connects.stream().anyMatch(c -> c.nanos() > connectedToNew && !c.site().equals(to))) {
      throw new IllegalStateException("the writer was routed away from " + to + " after the failover");
    }
    long firstWrite = load.acks().stream().filter(a -> a.nanos() > connectedToNew).mapToLong(WriteLoad.Ack::nanos)
        .min().orElseThrow();
    long ackedByDying = load.acks().stream().filter(a -> a.nanos() > killedAt && a.nanos() < connectedToNew).count();
    // Repeated Events are counted up rather than written again: a new one or a higher count is this run's.
    String proof = stack.api().events().stream()
        .filter(e -> count(e) > eventsBefore.getOrDefault(e.getMetadata().getName(), 0))
        .map(Event::getReason).filter(r -> r != null && r.startsWith("OldPrimary"))
        .collect(Collectors.toCollection(TreeSet::new)).toString();
    // The client's window: its last acknowledged write before the kill to its first one after.
    long lastBefore = load.acks().stream().filter(a -> a.nanos() <= killedAt).mapToLong(WriteLoad.Ack::nanos)
        .max().orElse(killedAt);
    Set<Long> acknowledged = new HashSet<>(load.acknowledged());
    Set<Long> onNewPrimary = new HashSet<>(DatabaseCluster.writtenIds(candidate));
    long lost = replicated.stream().filter(acknowledged::contains).filter(id -> !onNewPrimary.contains(id)).count();
    // Every row the client was told was committed, replicated or not, in the seconds before the kill
    // and by the dying primary after it: what semi-sync promises to keep.
    long recent = killedAt - Duration.ofSeconds(2).toNanos();
    long acknowledgedLost = load.acks().stream().filter(a -> a.nanos() > recent && a.nanos() < connectedToNew)
        .map(WriteLoad.Ack::id).filter(id -> !onNewPrimary.contains(id)).count();
    if (!to.equals(stack.api().resource().getStatus().activeSite())) {
      throw new IllegalStateException("promoted " + stack.api().resource().getStatus().activeSite() + ", not " + to);
    }

    KillTimeline.Steps seen = steps.after(killedAtMs);
    Breakdown breakdown = new Breakdown(sinceKill(seen.firstFailedPollMs(), killedAtMs),
        sinceKill(seen.confirmedMs(), killedAtMs), sinceKill(seen.workflowStartedMs(), killedAtMs),
        sinceKill(seen.writableMs(), killedAtMs), (connectedToNew - killedAt) / 1e6, (firstWrite - killedAt) / 1e6);

    primary.restart();
    await(() -> replicatesFrom(primary, candidate) || divergent(stack, from) != null,
        "the monitor to rejoin " + from + " as a replica of " + to + " or to block it");
    String divergent = replicatesFrom(primary, candidate) ? null : divergent(stack, from);
    String oldOnly = oldOnlyRows(primary, candidate, stack.server("dr"), runFloor, new HashSet<>(load.acknowledged()));
    String promotedAt = stack.api().resource().getStatus().promotionGtidExecuted();
    if (divergent != null) {
      // RecoveryBlocked: the writer had transactions on the killed server that had not reached the
      // replica. Do what a human would after reading status.sites[].divergentGtid: drop them from
      // the binlog (the rows stay, under ids nobody writes again) and replicate from the point of
      // promotion, so the next run can fail back.
      System.out.printf("%s RecoveryBlocked: divergent %s, %s promoted at %s; binlog states %s %s, %s %s, dr %s;"
          + " rows on %s only: %s%n", from, divergent, to, promotedAt, from, binlogState(primary), to,
          binlogState(candidate), binlogState(stack.server("dr")), from, oldOnly);
      primary.resetGtidHistoryTo(promotedAt);
      primary.replicateFrom(candidate);
    }
    await(() -> replicatesFrom(primary, candidate) && rejoined(stack, from),
        "status.sites to show " + from + " replicating from " + to);
    primary.awaitCaughtUpWith(candidate, TIMEOUT);
    return new Run(from, to, (firstWrite - killedAt) / 1e6, (succeededAt - killedAt) / 1e6,
        (firstWrite - lastBefore) / 1e6, lost, divergent != null, proof, divergent, promotedAt, ackedByDying,
        oldOnly, acknowledgedLost, breakdown);
  }

  private static double sinceKill(long ms, long killedAtMs) {
    return ms < 0 ? -1 : ms - killedAtMs;
  }

  /**
   * The rows of this run (ids from {@code floor}) the killed server holds and the new primary does
   * not, each marked acked (the client got success) and dr (the dr replica has it).
   */
  private static String oldOnlyRows(DatabaseServer old, DatabaseServer now, DatabaseServer dr, long floor,
      Set<Long> acknowledged) {
    // The killed server first: once rejoined it receives the new primary's rows, which must not
    // look like its own.
    List<Long> onOld = DatabaseCluster.writtenIds(old);
    Set<Long> onNew = new HashSet<>(DatabaseCluster.writtenIds(now));
    Set<Long> onDr = new HashSet<>(DatabaseCluster.writtenIds(dr));
    List<String> out = new ArrayList<>();
    for (long id : onOld) {
      if (id >= floor && !onNew.contains(id)) {
        out.add(id + (acknowledged.contains(id) ? " acked" : " unacked") + (onDr.contains(id) ? " on-dr" : ""));
      }
    }
    return out.size() + " " + out;
  }

  /** MariaDB's gtid_binlog_state (every server id of each domain), MySQL's gtid_executed. */
  private static String binlogState(DatabaseServer server) {
    return server.flavor() == Flavor.MARIADB ? server.queryString("SELECT @@GLOBAL.gtid_binlog_state")
        : server.gtidExecuted();
  }

  private static Map<String, Integer> eventCounts(FailoverStack stack) {
    return stack.api().events().stream().collect(Collectors.toMap(e -> e.getMetadata().getName(),
        EmergencyFailoverBenchmark::count, Math::max));
  }

  private static int count(Event e) {
    return e.getCount() == null ? 1 : e.getCount();
  }

  private static boolean replicatesFrom(DatabaseServer replica, DatabaseServer source) {
    return replica.replicaStatus().running() && replica.replicaStatus().sourcePort() == source.port();
  }

  private static String divergent(FailoverStack stack, String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.sites() == null ? null : s.sites().stream().filter(x -> site.equals(x.name()))
        .map(MysqlFailoverGroupStatus.SiteStatus::divergentGtid).filter(java.util.Objects::nonNull).findFirst()
        .orElse(null);
  }

  private static boolean succeededSince(FailoverStack stack, String before) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    EmergencyFailoverStatus e = s == null ? null : s.emergencyFailover();
    if (e != null && "Failed".equals(e.phase()) && e.startTime() != null && e.startTime().compareTo(before) >= 0) {
      throw new FailoverFailed("emergency failover failed: " + e.message());
    }
    return e != null && "Succeeded".equals(e.phase()) && e.startTime() != null && e.startTime().compareTo(before) >= 0;
  }

  /** status.sites shows the site replicating again: what the monitor writes once it has rejoined it. */
  private static boolean rejoined(FailoverStack stack, String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s != null && s.sites() != null && s.sites().stream()
        .anyMatch(x -> site.equals(x.name()) && Boolean.TRUE.equals(x.replicating()));
  }

  static String table(List<Run> runs, String pollInterval, Flavor flavor) {
    return String.format("emergency failover, %d runs, pollInterval %s, failureThreshold 3, 3 %s sites on"
        + " loopback, a sidecar per site (lease 20s, peer check 5s), writer every 2 ms; old primary rejoined by the"
        + " monitor %d times, by hand after RecoveryBlocked %d times%n", runs.size(), pollInterval,
        BenchmarkTable.servers(flavor), runs.stream().filter(r -> !r.repaired()).count(),
        runs.stream().filter(Run::repaired).count())
        + BenchmarkTable.header()
        + BenchmarkTable.row("kill -9 -> first write acknowledged by the new primary (ms)",
            runs.stream().map(Run::killToFirstWriteMs).toList())
        + BenchmarkTable.row("kill -9 -> emergencyFailover Succeeded (ms)",
            runs.stream().map(Run::killToSucceededMs).toList())
        + BenchmarkTable.row("write-unavailability window (ms)", runs.stream().map(Run::windowMs).toList())
        + BenchmarkTable.row("acknowledged and replicated rows lost",
            runs.stream().map(r -> (double) r.lost()).toList())
        + BenchmarkTable.row("acknowledged rows lost (replicated or not)",
            runs.stream().map(r -> (double) r.acknowledgedLost()).toList())
        + String.format("acknowledged rows lost in all: %d%n", runs.stream().mapToLong(Run::acknowledgedLost).sum())
        + breakdown(runs);
  }

  /**
   * Where the time went, step by step: each row the ms from the kill to a step (the runs where it
   * was seen), then the ms between consecutive steps.
   */
  static String breakdown(List<Run> runs) {
    return breakdown(runs.stream().map(Run::breakdown).toList(), "kill -9");
  }

  /** As above for any list of breakdowns, each row named from {@code cause} (the kill, the dark). */
  static String breakdown(List<Breakdown> runs, String cause) {
    record Step(String name, java.util.function.ToDoubleFunction<Breakdown> at) {}
    List<Step> steps = List.of(
        new Step("the monitor's first failed poll of the primary began", Breakdown::firstFailedPoll),
        new Step("the replicas confirmed its death", Breakdown::confirmed),
        new Step("the emergency workflow was started", Breakdown::workflowStarted),
        new Step("the candidate was made writable (Promote returned)", Breakdown::writable),
        new Step("the writer connected to it", Breakdown::writerConnected),
        new Step("its first write was acknowledged", Breakdown::firstWrite));
    StringBuilder out =
        new StringBuilder(String.format("%nwhere the time went (ms)%n")).append(BenchmarkTable.header());
    Step previous = null;
    for (Step step : steps) {
      List<Double> at = runs.stream().map(r -> step.at().applyAsDouble(r)).filter(v -> v >= 0).toList();
      if (at.isEmpty()) {
        continue;
      }
      out.append(BenchmarkTable.row(cause + " -> " + step.name() + (at.size() < runs.size()
          ? " (" + at.size() + " of " + runs.size() + " runs)" : ""), at));
      if (previous != null) {
        Step from = previous;
        List<Double> gap = runs.stream()
            .filter(b -> from.at().applyAsDouble(b) >= 0 && step.at().applyAsDouble(b) >= 0)
            .map(b -> step.at().applyAsDouble(b) - from.at().applyAsDouble(b)).toList();
        if (!gap.isEmpty()) {
          out.append(BenchmarkTable.row("step: " + from.name() + " -> " + step.name(), gap));
        }
      }
      previous = step;
    }
    return out.toString();
  }

  /** The failover ended Failed: waiting on is pointless. */
  private static final class FailoverFailed extends RuntimeException {
    FailoverFailed(String message) {
      super(message);
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    long until = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < until) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        if (e instanceof FailoverFailed) {
          throw e;
        }
        // A server still starting: ask again.
      }
      Playground.sleep(20);
    }
    throw new IllegalStateException("no " + what + " within " + TIMEOUT);
  }
}
