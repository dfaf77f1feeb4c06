package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The playground: the whole system on this machine, and a failover you can watch. Each scenario
 * prints a timeline and ends with a verdict line ({@code PASS}/{@code FAIL} and why). The tests run
 * the same scenarios through {@link #run(String, Path)}.
 *
 * <pre>
 *   ./temporal-dev/playground                      # planned-switchover
 *   ./temporal-dev/playground --list
 *   ./temporal-dev/playground all
 *   ./temporal-dev/playground --flavor mysql primary-kill   # MySQL 9.7 servers instead of MariaDB
 *   ./temporal-dev/playground serve                # the stack stays up; annotate, get, cancel talk to it
 * </pre>
 */
public final class Playground {
  /**
   * A scenario: its name on the command line, one line about it, the stack it needs, its body, and
   * the server flavors it runs on (the ones whose statements it was written and checked for).
   */
  record Scenario(String name, String summary, Supplier<FailoverStack.Options> options,
      BiFunction<FailoverStack, PrintStream, Verdict> body, Set<Flavor> flavors) {
    Scenario(String name, String summary, Supplier<FailoverStack.Options> options,
        BiFunction<FailoverStack, PrintStream, Verdict> body) {
      this(name, summary, options, body, EnumSet.of(Flavor.MARIADB));
    }

    /** Runs on MySQL as well as MariaDB. */
    Scenario onBothFlavors() {
      return new Scenario(name, summary, options, body, EnumSet.allOf(Flavor.class));
    }
  }

  /** {@code --flavor}'s value when none is given. */
  static final Flavor DEFAULT_FLAVOR = Flavor.MARIADB;

  private static final Map<String, Scenario> SCENARIOS = new LinkedHashMap<>();

  /**
   * Ctrl-C: set once the JVM is shutting down. The main thread keeps running while the shutdown
   * hooks do, so it must neither start another scenario nor leave a stack it was starting up.
   */
  private static final AtomicBoolean STOPPING = new AtomicBoolean();
  /** Held by the thread running a scenario until its stack is closed and its directory deleted. */
  private static final ReentrantLock RUNNING = new ReentrantLock();
  private static final AtomicReference<FailoverStack> CURRENT = new AtomicReference<>();
  private static final AtomicReference<Path> CURRENT_WORK = new AtomicReference<>();
  private static final AtomicReference<Thread> CURRENT_THREAD = new AtomicReference<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Playground::onShutdown, "playground-shutdown"));
  }

  static {
    add(new Scenario("planned-switchover", "iad -> pdx under write load: Succeeded, 0 rows lost, the write gap",
        FailoverStack.Options::playground, Scenarios::plannedSwitchover).onBothFlavors());
    add(new Scenario("planned-lag-timeout-rollback", "a 60 s lagging target and maxLagWait=2s: LagTimeout, rolled back",
        FailoverStack.Options::playground, Scenarios::plannedLagTimeoutRollback));
    add(new Scenario("planned-deferred-then-cancelled",
        "a request inside the cooldown with onCooldown=defer waits as Deferred; the cancel signal ends it, no fence",
        FailoverStack.Options::playground, Scenarios::plannedDeferredThenCancelled));
    add(new Scenario("primary-kill", "kill -9 of the primary under write load: the monitor promotes pdx, writes resume",
        FailoverStack.Options::emergency, FaultScenarios::primaryKill).onBothFlavors());
    add(new Scenario("worker-kill-mid-failover", "the worker dies in WaitingForLag and comes back: Succeeded, 0 lost",
        FailoverStack.Options::playground, FaultScenarios::workerKillMidFailover));
    add(new Scenario("watcher-kill-mid-failover",
        "the watcher dies right after picking the annotation up and comes back: Succeeded exactly once, 0 lost",
        FailoverStack.Options::playground, FaultScenarios::watcherKillMidFailover));
    add(new Scenario("partitioned-primary-self-fences",
        "iad's sidecar is cut off the watcher and its peers: it fences iad after leaseTimeout; after the heal the "
            + "watcher lifts that fence (nothing promoted, nothing lost)",
        FailoverStack.Options::emergency, FencingScenarios::partitionedPrimarySelfFences));
    add(new Scenario("errant-replica-not-promoted",
        "pdx holds an errant transaction, then iad is killed: the monitor refuses to promote pdx (DivergentCandidates)",
        FailoverStack.Options::emergency, FencingScenarios::errantReplicaNotPromoted));
    add(new Scenario("dragonfly-switchover",
        "iad -> pdx with a Redis session store beside MySQL, both under write load: the store moves first, 0 lost",
        FailoverStack.Options::playground, DragonflyScenarios::dragonflySwitchover));
    add(new Scenario("paused-group",
        "paused=true: a planned request refused (Paused), kill -9 of iad held (ActionHeld); resumed: pdx promoted, 0 lost",
        FailoverStack.Options::emergency, DayTwoScenarios::pausedGroup));
    add(new Scenario("drain-switchover",
        "onActiveNodeDrain=switchover; cordon iad's node: DrainSwitchoverRequested, planned iad -> pdx, 0 lost",
        FailoverStack.Options::emergency, DayTwoScenarios::drainSwitchover));
    add(new Scenario("hooks",
        "spec.hooks at a local HTTP endpoint: pre-hook 500 vetoes (nothing fenced); 200: Succeeded, post-hook body",
        FailoverStack.Options::playground, DayTwoScenarios::hooks));
    add(new Scenario("scheduled-switchover",
        "pdx:at=<time>: an hour ahead waits as Scheduled and is cancelled, no fence; five seconds ahead switches "
            + "over at its time, 0 lost",
        FailoverStack.Options::playground, Scenarios::scheduledSwitchover));
    add(new Scenario("fence-a-site",
        "fence dr: read-only, out of the replicas, not promoted when iad dies (pdx is); fencing the active site "
            + "stops the writes without a failover; unfencing undoes both",
        FenceSiteScenario::options, FenceSiteScenario::fenceASite));
  }

  private static void add(Scenario s) {
    SCENARIOS.put(s.name(), s);
  }

  /** The outcome of one scenario. */
  public record Verdict(boolean passed, String why) {
    @Override
    public String toString() {
      return (passed ? "PASS" : "FAIL") + ": " + why;
    }
  }

  public static void main(String[] args) throws Exception {
    List<String> names = new ArrayList<>(List.of(args));
    Flavor flavor;
    try {
      flavor = takeFlavor(names);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (names.isEmpty()) {
      names.add("planned-switchover");
    }
    Path root = Path.of(System.getProperty("playground.work", "temporal-dev/target/playground"));
    if (PlaygroundServe.COMMANDS.contains(names.get(0))) {
      if (flavor != DEFAULT_FLAVOR) {
        System.err.println("--flavor is for the scenarios; serve runs " + DEFAULT_FLAVOR.name().toLowerCase());
        System.exit(2);
      }
      System.exit(PlaygroundServe.main(root, names));
    }
    if (names.contains("--help") || names.contains("-h")) {
      usage(System.out);
      return;
    }
    if (names.contains("--list")) {
      list(System.out);
      return;
    }
    if (names.contains("all")) {
      names = SCENARIOS.values().stream().filter(s -> s.flavors().contains(flavor)).map(Scenario::name).toList();
    }
    for (String name : names) {
      Scenario scenario = SCENARIOS.get(name);
      if (scenario == null) {
        System.err.println("unknown scenario '" + name + "'; --list shows them");
        System.exit(2);
      }
      if (!scenario.flavors().contains(flavor)) {
        System.err.println("scenario '" + name + "' runs on " + flavorNames(scenario.flavors()) + " only; --list shows"
            + " which run with --flavor " + flavor.name().toLowerCase());
        System.exit(2);
      }
    }
    Optional<String> unavailable = flavor.unavailableReason();
    if (unavailable.isPresent()) {
      System.err.println("--flavor mysql needs MySQL 9.7 from the root file system scripts/prerequisites makes (as"
          + " root, with debootstrap; kept in $BLOODRAVEN_MYSQL_ROOT, default /var/cache/bloodraven/mysql-root),"
          + " and it cannot run here: " + unavailable.get());
      System.exit(3);
    }
    Map<String, Verdict> results = new LinkedHashMap<>();
    Map<String, Long> millis = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    for (String name : names) {
      if (STOPPING.get()) {
        break;
      }
      long started = System.nanoTime();
      results.put(name, run(name, root.resolve(name), flavor));
      millis.put(name, (System.nanoTime() - started) / 1_000_000);
    }
    if (STOPPING.get()) {
      System.out.println("interrupted: every process the scenario started is stopped");
      return;
    }
    if (results.size() > 1) {
      System.out.println();
      System.out.printf("%-32s %7s  %s%n", "scenario", "time", "verdict");
      results.forEach((n, v) -> System.out.printf("%-32s %5.1f s  %s%n", n, millis.get(n) / 1000.0, v));
      System.out.printf("%d scenarios in %d s%n", results.size(), (System.nanoTime() - t0) / 1_000_000_000);
    }
    System.exit(results.values().stream().allMatch(Verdict::passed) ? 0 : 1);
  }

  /** The scenarios' names, in the order {@code all} runs them. */
  public static List<String> scenarios() {
    return List.copyOf(SCENARIOS.keySet());
  }

  /** Runs one scenario on a fresh MariaDB stack; see {@link #run(String, Path, Flavor)}. */
  public static Verdict run(String name, Path work) throws IOException {
    return run(name, work, DEFAULT_FLAVOR);
  }

  /**
   * Runs one scenario on a fresh stack of {@code flavor}'s servers; everything it started is gone
   * when it returns. A scenario not written for the flavor is refused.
   */
  public static Verdict run(String name, Path work, Flavor flavor) throws IOException {
    Scenario scenario = SCENARIOS.get(name);
    if (scenario == null) {
      throw new IllegalArgumentException("unknown scenario '" + name + "'");
    }
    if (!scenario.flavors().contains(flavor)) {
      throw new IllegalArgumentException(
          "scenario '" + name + "' runs on " + flavorNames(scenario.flavors()) + " only");
    }
    RUNNING.lock();
    try {
      CURRENT_WORK.set(work);
      CURRENT_THREAD.set(Thread.currentThread());
      return runLocked(name, scenario, work, flavor);
    } finally {
      CURRENT.set(null);
      CURRENT_WORK.set(null);
      CURRENT_THREAD.set(null);
      RUNNING.unlock();
    }
  }

  /** Removes {@code --flavor X} (or {@code --flavor=X}) from {@code args}; the default when absent. */
  static Flavor takeFlavor(List<String> args) {
    Flavor flavor = DEFAULT_FLAVOR;
    for (int i = 0; i < args.size(); i++) {
      String value;
      if (args.get(i).equals("--flavor")) {
        if (i + 1 == args.size()) {
          throw new IllegalArgumentException("--flavor needs a value: mysql or mariadb");
        }
        value = args.remove(i + 1);
      } else if (args.get(i).startsWith("--flavor=")) {
        value = args.get(i).substring("--flavor=".length());
      } else {
        continue;
      }
      args.remove(i--);
      try {
        flavor = Flavor.valueOf(value.toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown flavor '" + value + "': use mysql or mariadb");
      }
    }
    return flavor;
  }

  static void usage(PrintStream out) {
    out.println("usage: ./temporal-dev/playground [--flavor mysql|mariadb] [scenario ...|all]");
    out.println("       ./temporal-dev/playground --list | --help");
    out.println("--flavor  the servers' flavor (default mariadb): mysql runs MySQL 9.7 mysqld from the root"
        + " file system scripts/prerequisites makes when run as root; the scenarios marked [mariadb] run on MariaDB"
        + " only");
    out.println();
    list(out);
  }

  static void list(PrintStream out) {
    SCENARIOS.values().forEach(s -> out.printf("%-32s %s%s%n", s.name(), s.summary(),
        s.flavors().size() == Flavor.values().length ? "" : " [" + flavorNames(s.flavors()) + "]"));
    out.printf("%-32s %s%n", "--flavor mysql|mariadb", "before the scenarios: the servers' flavor (default mariadb);"
        + " mysql needs the MySQL 9.7 root scripts/prerequisites makes as root");
    PlaygroundServe.usage(out);
  }

  private static String flavorNames(Set<Flavor> flavors) {
    return String.join(", ", flavors.stream().map(f -> f.name().toLowerCase(java.util.Locale.ROOT)).toList());
  }

  private static Verdict runLocked(String name, Scenario scenario, Path work, Flavor flavor) throws IOException {
    FileTrees.delete(work);
    Files.createDirectories(work);
    PrintStream out = System.out;
    out.println("== " + name + " (" + flavor.name().toLowerCase(java.util.Locale.ROOT) + "): " + scenario.summary());
    long t0 = System.nanoTime();
    // TLS on in every scenario (issue #32): each one exercises the encrypted sessions and channels.
    try (FailoverStack stack = startWithSidecars(work, scenario.options().get().withFlavor(flavor).withTls());
        KubectlGateway gateway = printEndpoints(stack, out, work, t0)) {
      // From here Ctrl-C closes the stack under the scenario, which then fails fast.
      CURRENT.set(stack);
      if (STOPPING.get()) {
        return new Verdict(false, "interrupted");
      }
      Verdict verdict = scenario.body().apply(stack, out);
      out.println(verdict);
      return verdict;
    } catch (RuntimeException e) {
      Verdict verdict = new Verdict(false, STOPPING.get() ? "interrupted" : "scenario crashed: " + e);
      out.println(verdict);
      return verdict;
    } finally {
      FileTrees.delete(work);
    }
  }

  /**
   * Ctrl-C in the middle of a scenario: stop every process its stack started, interrupt the
   * scenario's thread so that its waits end now, wait for it to finish closing what it started (a
   * stack that was still starting is closed by that thread), and remove the scenario's data
   * directory. testsupport's own hook kills any server process too.
   */
  private static void onShutdown() {
    STOPPING.set(true);
    FailoverStack stack = CURRENT.get();
    if (stack != null) {
      stack.close();
    }
    Thread scenario = CURRENT_THREAD.get();
    if (scenario != null) {
      scenario.interrupt();
    }
    try {
      if (RUNNING.tryLock(30, TimeUnit.SECONDS)) {
        RUNNING.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Path work = CURRENT_WORK.get();
    if (work != null) {
      deleteQuietly(work);
    }
  }

  /** The stack with a sidecar per site, as issue #7 describes it; nothing left running if it fails. */
  static FailoverStack startWithSidecars(Path work, FailoverStack.Options options) {
    FailoverStack stack = FailoverStack.start(work, options);
    try {
      stack.startSidecars(SidecarMesh.Knobs.playground());
      return stack;
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  /** Prints where everything listens and writes the kubeconfig; the returned gateway serves kubectl. */
  static KubectlGateway printEndpoints(FailoverStack stack, PrintStream out, Path work, long t0) throws IOException {
    out.printf("stack up in %d ms: Temporal at %s (namespace default), group shop/orders, sites %s%n",
        (System.nanoTime() - t0) / 1_000_000, stack.controlPlane().temporalTarget(), stack.servers().keySet());
    stack.servers().forEach((site, server) -> out.printf("  %-4s %s %s%s%n", site, daemon(stack), server.jdbcUrl(),
        stack.sidecars().map(s -> ", sidecar http://127.0.0.1:" + s.port(site) + "/status").orElse("")));
    if (stack.sidecars().isPresent()) {
      out.printf("  (a sidecar's /status wants its token: curl -H 'Authorization: Bearer %s' <url>)%n",
          FailoverStack.SIDECAR_TOKEN);
    }
    KubectlGateway gateway = KubectlGateway.start(stack.api().client().getMasterUrl().toString());
    Path kubeconfig = Kubeconfig.write(gateway.url(), stack.api().ref().namespace(), work.resolve("kubeconfig"));
    out.printf("  mock Kubernetes API %s (for kubectl: export KUBECONFIG=%s)%n", gateway.url(),
        kubeconfig.toAbsolutePath());
    out.println("  the failover as the Temporal UI shows it (summary, current details, history): "
        + describeCommand(stack.controlPlane().temporalTarget(), stack.api().ref().workflowId()));
    return gateway;
  }

  /** The servers' program as ps shows it: mariadbd, or MySQL's mysqld. */
  static String daemon(FailoverStack stack) {
    return stack.flavor() == Flavor.MYSQL ? "mysqld" : "mariadbd";
  }

  /**
   * The CLI command that shows a failover's static summary and current details. By workflow id:
   * this dev server is Temporal's Java test server, which cannot list workflows by a search query
   * ({@code FailoverGroup="shop/orders"}), so the UI's search does not work against it.
   */
  static String describeCommand(String temporalTarget, String workflowId) {
    return "temporal workflow describe --address " + temporalTarget + " --namespace default --workflow-id "
        + workflowId;
  }

  static void deleteQuietly(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException | UncheckedIOException ignored) {
      // Only files under target/ are left behind; the next run of the same scenario deletes them.
    }
  }

  /** Annotates the group and prints each phase as the status reaches it, until the failover ends. */
  static PlannedFailoverStatus watch(FailoverStack stack, Timeline timeline, String annotation, Duration timeout) {
    String before = annotate(stack, timeline, annotation);
    return timeline.awaitPlannedEnd(stack, before, timeout);
  }

  /** Annotates the group, printing the kubectl command it stands for; returns the instant before. */
  static String annotate(FailoverStack stack, Timeline timeline, String annotation) {
    String before = Timeline.now();
    timeline.print("kubectl annotate mysqlfailovergroup orders bloodraven.shipstream.io/planned-failover=%s",
        annotation);
    stack.api().annotate(annotation);
    return before;
  }

  static void printStatus(PrintStream out, PlannedFailoverStatus s) {
    out.println("status.plannedFailover:");
    for (String line : Serialization.asYaml(s).split("\n")) {
      if (!line.equals("---")) {
        out.println("  " + line);
      }
    }
  }

  static long missing(FailoverStack stack, WriteLoad load, String primary) {
    List<Long> present = DatabaseCluster.writtenIds(stack.server(primary));
    return load.acknowledged().stream().filter(id -> !present.contains(id)).count();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
