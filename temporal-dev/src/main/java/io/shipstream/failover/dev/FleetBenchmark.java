package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.StaticCredentialsProvider;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.watcher.monitor.TopologyMonitor;
import io.shipstream.failover.watcher.topology.GroupEffects;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.SiteProber;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leader's topology monitor over a fleet: G groups of three sites (iad primary, pdx replica,
 * dr dr-only replica) at the default knobs (2 s polls, 3 failures), as the leading watcher runs it:
 * {@link TopologyMonitor} with {@link SiteProber} against real {@code mariadbd}, its reactions and
 * status writes counted by a fake (no API server: what is measured is the monitor, and the writes
 * it would send are counted, not sent).
 *
 * <p>The monitor's cost is per site polled, so every group's sites share one replicating trio of
 * {@code mariadbd} (started with room for the connections): every iad is the same host:port, every
 * pdx too, and every dr reaches its server through one {@link TcpProxy}, the dr region's link.
 * Each site is still its own poll and (kept) connection. One more group, the victim, has its own
 * trio: its primary is {@code kill -9}ed while the fleet is polled, and the time to the monitor's
 * verdict (the emergency failover it starts) is measured.
 *
 * <p>Per G and per poll connection policy (a new connection per poll, as before, and one kept
 * connection per site), two phases of {@link #WINDOW}: everything healthy, then a region outage
 * (the dr proxy black-holed: a third of all sites block for their whole timeout at once). Measured:
 * the CPU of the monitor's threads ({@code topology-*}: polls, JDBC, evaluations, the counted writes)
 * and of the whole JVM (which also runs the proxy and this benchmark) as cores, CPU per poll,
 * answered polls' latency p50/p99, how late polls started after they fell due (p99: the
 * starvation measure), status writes and Events per second, poll threads alive, and kill to
 * verdict. Numbers are printed, never asserted.
 *
 * <pre>./temporal-dev/benchmark fleet [--groups 50,200,500] [--policies new,kept] [--json FILE]</pre>
 */
public final class FleetBenchmark {
  static final Duration WINDOW = Duration.ofSeconds(Long.getLong("fleet.window.seconds", 20));
  private static final Duration POLL_INTERVAL = Duration.ofSeconds(2);
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final String NAMESPACE = "fleet";
  private static final GroupRef VICTIM = new GroupRef(NAMESPACE, "victim");

  private FleetBenchmark() {}

  /** One phase of one run. */
  record Phase(int groups, int sites, String policy, String phase, long polls, long answered, double monitorCores,
      double jvmCores, double monitorCpuMicrosPerPoll, double answeredP50Ms, double answeredP99Ms,
      double startDelayP50Ms, double startDelayP99Ms, double statusWritesPerSecond, double eventsPerSecond,
      long connectionsOpened, int peakPollThreads, double killToVerdictMs, String verdict, double loadAverage) {}

  public static void main(String[] args) throws IOException {
    List<Integer> sizes = List.of(50, 200, 500);
    List<String> policies = List.of("new", "kept");
    Path json = Path.of("temporal-dev/target/benchmark-results.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--groups" -> sizes = java.util.Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
        case "--policies" -> policies = List.of(args[++i].split(","));
        case "--json" -> json = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; use --groups G[,G...], --policies new,kept, --json FILE");
      }
    }
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark")).resolve("fleet");
    List<Phase> phases = measure(work, sizes, policies);
    String table = table(phases);
    System.out.println();
    System.out.println(table);
    Map<String, Object> results = new LinkedHashMap<>();
    File file = json.toFile();
    if (file.isFile()) {
      try {
        @SuppressWarnings("unchecked")
        Map<String, Object> before = new ObjectMapper().readValue(file, Map.class);
        results.putAll(before);
      } catch (IOException e) {
        System.err.println("fleet: " + json + " could not be read, written anew: " + e.getMessage());
      }
    }
    results.put("fleet", phases);
    Files.createDirectories(json.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file, results);
    System.out.println("the fleet runs as JSON under \"fleet\" in " + json.toAbsolutePath());
  }

  static List<Phase> measure(Path work, List<Integer> sizes, List<String> policies) {
    Playground.deleteQuietly(work);
    List<Phase> phases = new ArrayList<>();
    List<String> room = List.of("--max-connections=" + (2 * sizes.stream().mapToInt(Integer::intValue).max().orElse(50)
        + 100), "--thread-cache-size=64");
    List<MariaDbServer> fleet = new ArrayList<>();
    try {
      for (String name : List.of("fleet-iad", "fleet-pdx", "fleet-dr")) {
        fleet.add(MariaDbServer.start(work, name, room));
      }
      MariaDbServer primary = fleet.get(0);
      primary.execute("CREATE DATABASE appdb", "CREATE TABLE appdb.t (id INT PRIMARY KEY)",
          "INSERT INTO appdb.t VALUES (1)");
      for (MariaDbServer replica : fleet.subList(1, 3)) {
        replica.setReadOnly(true);
        replica.replicateFrom(primary);
        replica.awaitCaughtUpWith(primary, Duration.ofSeconds(30));
      }
      try (TcpProxy drLink = TcpProxy.start(fleet.get(2).host(), fleet.get(2).port());
          DatabaseCluster victim = DatabaseCluster.start(Flavor.MARIADB, work.resolve("victim"), 3)) {
        for (int groups : sizes) {
          for (String policy : policies) {
            try {
              phases.addAll(run(groups, policy, fleet, drLink, victim));
            } catch (RuntimeException e) {
              // The runs before are kept; this one is reported as not measured.
              System.err.printf("fleet: %d groups, %s: not measured: %s%n", groups, policy, e);
            }
          }
        }
      }
    } finally {
      fleet.forEach(MariaDbServer::close);
      Playground.deleteQuietly(work);
    }
    return phases;
  }

  /** One monitor over {@code groups} groups and the victim: the healthy phase, then the outage. */
  private static List<Phase> run(int groups, String policy, List<MariaDbServer> fleet, TcpProxy drLink,
      DatabaseCluster victim) {
    Map<GroupRef, MysqlFailoverGroup> resources = new ConcurrentHashMap<>();
    for (int i = 0; i < groups; i++) {
      GroupRef ref = new GroupRef(NAMESPACE, "g" + i);
      resources.put(ref, group(ref, List.of(endpoint(fleet.get(0)), endpoint(fleet.get(1)),
          new SiteSpec.Endpoint(drLink.host(), drLink.port()))));
    }
    MysqlFailoverGroup victimGroup = group(VICTIM, victim.servers().stream().map(FleetBenchmark::endpoint).toList());
    resources.put(VICTIM, victimGroup);
    SiteProber prober = new SiteProber(new StaticCredentialsProvider(LOGIN), Clock.systemUTC(), policy.equals("kept"));
    Recording recording = new Recording(prober);
    CountingEffects effects = new CountingEffects();
    AtomicLong statusWrites = new AtomicLong();
    TopologyMonitor monitor = new TopologyMonitor(recording, new VerdictReactions(effects),
        (ref, sites) -> statusWrites.incrementAndGet(), new TopologyMetrics(new SimpleMeterRegistry()),
        ref -> Optional.ofNullable(resources.get(ref)), Clock.systemUTC());
    List<Phase> out = new ArrayList<>();
    String label = groups + " groups, " + (policy.equals("kept") ? "kept connections" : "a new connection per poll");
    try {
      resources.values().forEach(monitor::onAdd);
      System.out.printf("fleet: %s: %d sites polled every %s%n", label, 3 * (groups + 1), POLL_INTERVAL);
      // Every site polled a few times: connections opened, status written once; on a loaded machine
      // the first connections of a large fleet take longer, and the windows start once a whole poll
      // interval opened none (at most a minute).
      Playground.sleep(3 * POLL_INTERVAL.toMillis());
      long settledBy = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      long opened = -1;
      while (policy.equals("kept") && prober.pollConnectionsOpened() != opened && System.nanoTime() < settledBy) {
        opened = prober.pollConnectionsOpened();
        Playground.sleep(POLL_INTERVAL.toMillis());
      }
      out.add(phase(groups, policy, "healthy", recording, effects, statusWrites, prober, monitor, resources, victim));
      drLink.blackhole();
      try {
        out.add(phase(groups, policy, "dr region black-holed", recording, effects, statusWrites, prober, monitor,
            resources, victim));
      } finally {
        drLink.heal();
      }
    } finally {
      monitor.close();
      prober.close();
    }
    out.forEach(p -> System.out.printf("fleet: %s, %s: monitor %.3f cores (%.0f us per poll), answered p50 %.1f ms"
        + " p99 %.1f ms, start delay p99 %.1f ms, %.1f status writes/s, kill to verdict %.0f ms%n", label, p.phase(),
        p.monitorCores(), p.monitorCpuMicrosPerPoll(), p.answeredP50Ms(), p.answeredP99Ms(), p.startDelayP99Ms(),
        p.statusWritesPerSecond(), p.killToVerdictMs()));
    return out;
  }

  /** A window of {@link #WINDOW}; then the victim's primary is killed and the verdict awaited. */
  private static Phase phase(int groups, String policy, String name, Recording recording, CountingEffects effects,
      AtomicLong statusWrites, SiteProber prober, TopologyMonitor monitor, Map<GroupRef, MysqlFailoverGroup> resources,
      DatabaseCluster victim) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Window w = recording.begin();
    long writes0 = statusWrites.get();
    long events0 = effects.events.get();
    long opened0 = prober.pollConnectionsOpened();
    long monitorCpu0 = monitorCpuNanos(threads);
    long jvmCpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    int peakThreads = 0;
    long end = t0 + WINDOW.toNanos();
    while (System.nanoTime() < end) {
      Playground.sleep(250);
      peakThreads = Math.max(peakThreads, pollThreads(threads));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double monitorCpu = (monitorCpuNanos(threads) - monitorCpu0) / 1e9;
    double jvmCpu = (processCpuNanos() - jvmCpu0) / 1e9;
    recording.end();
    long writes = statusWrites.get() - writes0;
    long events = effects.events.get() - events0;
    long opened = prober.pollConnectionsOpened() - opened0;
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();

    // The victim's primary dies while the fleet is polled (and, in the outage, while a third of it blocks).
    effects.promoted.clear();
    long killed = System.nanoTime();
    victim.primary().kill9();
    long until = killed + Duration.ofSeconds(60).toNanos();
    while (!effects.promoted.containsKey(VICTIM) && System.nanoTime() < until) {
      Playground.sleep(5);
    }
    Long verdictAt = effects.promoted.get(VICTIM);
    double killToVerdict = verdictAt == null ? Double.NaN : (verdictAt - killed) / 1e6;
    String verdict = verdictAt == null ? "no verdict within 60 s" : effects.promotions.get(VICTIM);
    // Back as it was: the primary restarted, its replicas following it, the group watched afresh.
    monitor.deleted(VICTIM);
    victim.primary().restart();
    for (DatabaseServer replica : victim.replicas()) {
      retried(() -> replica.replicateFrom(victim.primary()));
    }
    monitor.onAdd(resources.get(VICTIM));
    Playground.sleep(2 * POLL_INTERVAL.toMillis());

    List<Double> answered = w.answeredMs.stream().sorted().toList();
    List<Double> late = w.startDelayMs.stream().sorted().toList();
    long polls = w.polls.get();
    return new Phase(groups, 3 * groups, policy, name, polls, answered.size(), monitorCpu / seconds, jvmCpu / seconds,
        polls == 0 ? Double.NaN : monitorCpu * 1e6 / polls, BenchmarkTable.percentile(answered, 0.5),
        BenchmarkTable.percentile(answered, 0.99), BenchmarkTable.percentile(late, 0.5),
        BenchmarkTable.percentile(late, 0.99), writes / seconds, events / seconds, opened, peakThreads, killToVerdict,
        verdict, load);
  }

  /** A restore step on a machine loaded by the fleet: a refused connection is tried again. */
  private static void retried(Runnable step) {
    for (int attempt = 1;; attempt++) {
      try {
        step.run();
        return;
      } catch (RuntimeException e) {
        if (attempt == 5) {
          throw e;
        }
        System.err.println("fleet: restoring the victim group, tried again: " + e.getMessage());
        Playground.sleep(1_000);
      }
    }
  }

  static String table(List<Phase> phases) {
    List<List<String>> rows = new ArrayList<>();
    for (Phase p : phases) {
      rows.add(List.of(Integer.toString(p.groups()), p.policy().equals("kept") ? "kept" : "new per poll", p.phase(),
          Long.toString(p.polls()), String.format(Locale.ROOT, "%.3f", p.monitorCores()),
          String.format(Locale.ROOT, "%.3f", p.jvmCores()),
          String.format(Locale.ROOT, "%.0f", p.monitorCpuMicrosPerPoll()),
          String.format(Locale.ROOT, "%.1f / %.1f", p.answeredP50Ms(), p.answeredP99Ms()),
          String.format(Locale.ROOT, "%.1f / %.1f", p.startDelayP50Ms(), p.startDelayP99Ms()),
          String.format(Locale.ROOT, "%.1f", p.statusWritesPerSecond()),
          String.format(Locale.ROOT, "%.1f", p.eventsPerSecond()), Long.toString(p.connectionsOpened()),
          Integer.toString(p.peakPollThreads()), String.format(Locale.ROOT, "%.0f", p.killToVerdictMs()),
          String.format(Locale.ROOT, "%.1f", p.loadAverage())));
    }
    return "fleet: the leader's topology monitor, G groups of three sites on shared mariadbd (every dr through one"
        + " proxy), 2 s polls, " + WINDOW.toSeconds() + " s per phase; CPU in cores of this machine ("
        + Runtime.getRuntime().availableProcessors() + "); the kill is of one more group's own primary\n"
        + BenchmarkTable.markdown(List.of("groups", "poll connections", "phase", "polls", "monitor CPU (cores)",
            "JVM CPU (cores)", "monitor CPU per poll (us)", "answered poll p50 / p99 (ms)",
            "poll start delay p50 / p99 (ms)",
            "status writes/s", "Events/s", "connections opened", "poll threads (peak)", "kill -9 to verdict (ms)",
            "load average"), rows);
  }

  private static SiteSpec.Endpoint endpoint(DatabaseServer server) {
    return new SiteSpec.Endpoint(server.host(), server.port());
  }

  private static MysqlFailoverGroup group(GroupRef ref, List<SiteSpec.Endpoint> endpoints) {
    List<SiteSpec> sites = new ArrayList<>();
    List<String> names = List.of("iad", "pdx", "dr");
    for (int i = 0; i < 3; i++) {
      SiteSpec t = MockCluster.site(ref.name(), names.get(i), "10.0." + (i + 1) + ".1");
      sites.add(new SiteSpec(t.name(), i == 2 ? SiteSpec.ROLE_DR_ONLY : t.role(), t.zone(), endpoints.get(i),
          t.podSelector(), t.taintNodeSelector(), t.lbIP(), null, null, "mariadb"));
    }
    MysqlFailoverGroup g = new MysqlFailoverGroup();
    g.getMetadata().setNamespace(ref.namespace());
    g.getMetadata().setName(ref.name());
    g.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef(FailoverStack.SECRET), null, null,
        null, "0s", null, null, null, new MysqlFailoverGroupSpec.DnsSpec(ref.name() + ".db.example.com", 30), null,
        null));
    g.setStatus(MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    GroupConfig.resolve(g.getSpec());
    return g;
  }

  /** The monitor's threads: the poll scheduler, the poll threads and the evaluations. */
  private static long monitorCpuNanos(ThreadMXBean threads) {
    long total = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("topology-")) {
        total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }

  private static int pollThreads(ThreadMXBean threads) {
    int n = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("topology-poll")) {
        n++;
      }
    }
    return n;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** What one window saw of the polls. */
  private static final class Window {
    final AtomicLong polls = new AtomicLong();
    final List<Double> answeredMs = java.util.Collections.synchronizedList(new ArrayList<>());
    final List<Double> startDelayMs = java.util.Collections.synchronizedList(new ArrayList<>());
  }

  /**
   * The prober as the monitor sees it, timing each poll. A site answered last time is due again
   * one poll interval after that poll started (the monitor subtracts the poll's time from the
   * delay), so how much later it starts is what it waited for a thread.
   */
  private static final class Recording implements SiteConnector {
    private final SiteConnector inner;
    private final Map<String, long[]> last = new ConcurrentHashMap<>();
    private volatile Window window;

    Recording(SiteConnector inner) {
      this.inner = inner;
    }

    Window begin() {
      window = new Window();
      return window;
    }

    void end() {
      window = null;
    }

    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      long started = System.nanoTime();
      Probe p = inner.probe(group, config, site);
      long took = System.nanoTime() - started;
      String key = group.name() + "/" + site.name();
      long[] before = last.put(key, new long[] {started, p.reachable() ? 1 : 0, took});
      Window w = window;
      if (w != null) {
        w.polls.incrementAndGet();
        if (p.reachable()) {
          w.answeredMs.add(took / 1e6);
        }
        if (before != null && before[1] == 1 && before[2] < config.pollInterval().toNanos()) {
          long due = before[0] + config.pollInterval().toNanos();
          w.startDelayMs.add(Math.max(0, started - due) / 1e6);
        }
      }
      return p;
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) throws Exception {
      inner.fence(group, config, site);
    }

    @Override
    public void forget(GroupRef group) {
      inner.forget(group);
    }
  }

  /** Counts what the reactions would send; records when the emergency failover is started. */
  private static final class CountingEffects implements GroupEffects {
    final AtomicInteger events = new AtomicInteger();
    final Map<GroupRef, Long> promoted = new ConcurrentHashMap<>();
    final Map<GroupRef, String> promotions = new ConcurrentHashMap<>();

    @Override
    public boolean startEmergency(GroupRef group, Verdict.Promote promote, Map<String, String> siteGtids) {
      promoted.putIfAbsent(group, System.nanoTime());
      promotions.put(group, promote.failedSite() + " -> " + promote.candidate());
      return true;
    }

    @Override
    public boolean failoverRunning(GroupRef group) {
      return false;
    }

    @Override
    public void fence(GroupRef group, String site) {
      events.incrementAndGet();
    }

    @Override
    public void event(GroupRef group, String type, String reason, String message) {
      events.incrementAndGet();
    }

    @Override
    public void recordActiveSite(GroupRef group, String site) {
      events.incrementAndGet();
    }

    @Override
    public void removeAnnotation(GroupRef group, String key, String value) {
      events.incrementAndGet();
    }
  }
}
