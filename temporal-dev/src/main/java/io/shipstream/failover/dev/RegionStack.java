package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.dev.faults.WritableWatch;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The emergency stack (iad and pdx primary candidates, dr dr-only, a sidecar each) with every site
 * a region of its own and the control plane in a third ({@value #CONTROL_PLANE_REGION}), wired by
 * {@link RegionNetwork}; one stack serves any number of region outages, one after the other. Used
 * by the region drills of the fault suite, {@code RegionOutageIT} and {@code benchmark
 * region-outage}. Each outage runs two writers: one in the surviving candidate's region writing
 * wherever the primary Service routes (through the regions' links), one inside the dark region
 * writing to its own server directly, as an application placed there would.
 */
public final class RegionStack implements AutoCloseable {
  public static final String CONTROL_PLANE_REGION = "ctl";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  /**
   * The monitor's and the sidecars' knobs, the semi-sync timeout of the {@code required} runs, and
   * the watchers' Lease ({@code watcherLease}; its renew deadline and retry period in the chart's
   * ratios, 15 s / 10 s / 2 s).
   */
  public record Knobs(String pollInterval, int failureThreshold, SidecarMesh.Knobs sidecar, String semiSyncTimeout,
      Duration watcherLease) {
    /**
     * CI's: 2 s leases, the sidecars' and the watchers'; polls every second, so detection (3 s)
     * outlasts a 2 s blip; a semi-sync timeout (4 s) past lease + peer check (2.5 s) but short of
     * it plus the fence's 2 s lock wait: a fence that waited behind the commits waiting for an
     * acknowledgement would let the server fall back and acknowledge them.
     */
    public static Knobs shortLeases() {
      return new Knobs("1s", 3, new SidecarMesh.Knobs(Duration.ofSeconds(2), Duration.ofMillis(500)), "4s",
          Duration.ofSeconds(2));
    }

    /**
     * The spec's defaults (polls 2 s x 3, lease 20 s, peer check 5 s); semi-sync 40 s, past 25 s;
     * the chart's watcher Lease (15 s).
     */
    public static Knobs defaults() {
      return new Knobs("2s", 3, EmergencyFailoverBenchmark.SIDECAR_KNOBS, "40s", Duration.ofSeconds(15));
    }

    /** How long the watcher leader keeps trying to renew before it stops acting: 2/3 of the Lease. */
    public Duration watcherRenewDeadline() {
      return watcherLease.multipliedBy(2).dividedBy(3);
    }

    /** How often the watchers try the Lease: 2/15 of it. */
    public Duration watcherRetryPeriod() {
      return watcherLease.multipliedBy(2).dividedBy(15);
    }

    Duration lease() {
      return sidecar.leaseTimeout();
    }
  }

  /**
   * One outage of the primary's region, times in ms from the moment it went dark (-1: not seen).
   * {@code fenceMs}: the isolated primary first answered read-only to a probe inside its region;
   * {@code firstNewWriteMs}: the outside writer's first write acknowledged by the new primary;
   * {@code insideAckedAfterFence}: writes the inside writer sent after the fence was seen and
   * still had acknowledged (the fence must end them); {@code lost}: acknowledged ids (either
   * writer) missing on the new primary, {@code unaccounted}: of those, the ones not on the old
   * primary either; {@code inDoubt}: rows only the old primary has that no writer saw acknowledged;
   * {@code waitingForAck}: the most commits seen waiting for a semi-sync acknowledgement on the
   * isolated primary before its fence (what the fence must not wait behind).
   */
  public record DarkRun(String from, String to, String outcome, double fenceMs, double firstNewWriteMs,
      long insideAckedAfterFence, long acknowledged, long lost, long unaccounted, long inDoubt, int most,
      int waitingForAck,
      String watchDetail, String returned, EmergencyFailoverBenchmark.Breakdown breakdown, String oldPrimaryWait) {
    /**
     * How long before the naming the wait for the old primary counted from (its lease's last
     * renewal, read from every renewer); -1 when it counted from the naming or was not shown.
     */
    public double anchoredMs() {
      return RegionStack.anchoredMs(oldPrimaryWait);
    }
  }

  private static final java.util.regex.Pattern ANCHORED =
      java.util.regex.Pattern.compile("the lease counted from its last renewal, (\\d+) ms before the naming");

  /**
   * From {@code status.emergencyFailover.oldPrimaryWait.detail}: how long before the naming the
   * wait for the old primary counted from (its lease's last renewal); -1 when it counted from the
   * naming or {@code detail} is null.
   */
  public static double anchoredMs(String detail) {
    java.util.regex.Matcher m = detail == null ? null : ANCHORED.matcher(detail);
    return m != null && m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  private final FailoverStack stack;
  private final RegionNetwork network;
  private final Knobs knobs;
  private final KillTimeline timeline;
  /** The activity attempts of the stack's own worker. */
  private final ActivityAttempts attempts;
  private long nextId = 1;

  private RegionStack(FailoverStack stack, RegionNetwork network, Knobs knobs, KillTimeline timeline,
      ActivityAttempts attempts) {
    this.stack = stack;
    this.network = network;
    this.knobs = knobs;
    this.timeline = timeline;
    this.attempts = attempts;
  }

  public static RegionStack start(Path work, Flavor flavor, Knobs knobs) {
    KillTimeline timeline = KillTimeline.listening();
    ActivityAttempts attempts = new ActivityAttempts();
    FailoverStack stack = null;
    try {
      stack = FailoverStack.start(work, new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s",
          null, knobs.pollInterval(), knobs.failureThreshold(), true).withFlavor(flavor));
      stack.controlPlane().addWorkerInterceptor(timeline);
      stack.controlPlane().addWorkerInterceptor(attempts);
      stack.controlPlane().killWorker();
      stack.controlPlane().startWorker();
      stack.controlPlane().useLeaseTimings(knobs.watcherLease(), knobs.watcherRenewDeadline(),
          knobs.watcherRetryPeriod());
      stack.controlPlane().killWatcher();
      stack.controlPlane().startWatcher();
      stack.startSidecars(knobs.sidecar());
      RegionNetwork network = RegionNetwork.build(stack, Map.of(), CONTROL_PLANE_REGION);
      return new RegionStack(stack, network, knobs, timeline, attempts);
    } catch (RuntimeException e) {
      if (stack != null) {
        stack.close();
      }
      timeline.close();
      throw e;
    }
  }

  public FailoverStack stack() {
    return stack;
  }

  public RegionNetwork network() {
    return network;
  }

  public Knobs knobs() {
    return knobs;
  }

  KillTimeline timeline() {
    return timeline;
  }

  ActivityAttempts attempts() {
    return attempts;
  }

  /** The first of 20 million ids of one outage's writers, none used before. */
  long nextIds() {
    long base = nextId;
    nextId += 20_000_000;
    return base;
  }

  /**
   * spec.semiSync {@code required} with the knobs' timeout, or off; waits until the status shows a
   * replica acknowledging, or until the active primary's server has semi-sync off.
   */
  public void semiSyncRequired(boolean on) {
    MysqlFailoverGroupSpec.SemiSyncSpec spec = on ? new MysqlFailoverGroupSpec.SemiSyncSpec(true, "required",
        knobs.semiSyncTimeout(), 1, null) : null;
    stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, spec));
    if (on) {
      await(() -> {
        MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
        return s != null && s.semiSync() != null && Boolean.TRUE.equals(s.semiSync().enabled())
            && s.semiSync().clients() != null && s.semiSync().clients() >= 1;
      }, "status.semiSync enabled with a replica acknowledging");
    } else {
      String variables = stack.flavor() == Flavor.MARIADB ? "information_schema.GLOBAL_VARIABLES"
          : "performance_schema.global_variables";
      await(() -> stack.server(stack.api().resource().getStatus().activeSite()).queryLong("SELECT COUNT(*) FROM "
          + variables + " WHERE LOWER(VARIABLE_NAME) IN ('rpl_semi_sync_master_enabled',"
          + " 'rpl_semi_sync_source_enabled') AND UPPER(VARIABLE_VALUE) = 'ON'") == 0,
          "semi-sync off on the active primary");
    }
  }

  /**
   * The primary's region goes dark under the two writers; once the other candidate was promoted
   * and its writes flow, the region comes back when {@code comeBack} (the old primary must then be
   * held read-only and rejoin, or be held with divergentGtid), and the run is judged. The stack is
   * left with every region lit and the old primary replicating (by hand, as an operator does,
   * when it was held).
   */
  public DarkRun primaryRegionDark(boolean comeBack) {
    String from = stack.api().resource().getStatus().activeSite();
    String to = "iad".equals(from) ? "pdx" : "iad";
    String dark = network.regionOf(from);
    DatabaseServer old = stack.server(from);
    DatabaseServer candidate = stack.server(to);
    List<long[]> connects = new CopyOnWriteArrayList<>();
    long base = nextIds();
    String returned = "n/a";
    try (WriteLoad outside = WriteLoad.start(() -> outsideUrl(to, connects), Duration.ofMillis(5), base);
        // Inside, as a pool without a socket timeout: a commit waiting for an acknowledgement is
        // waited for as long as the server takes, so one the server acknowledges late is counted.
        WriteLoad inside = WriteLoad.start(() -> network.jdbcUrl(dark, from), Duration.ofMillis(5), base + 10_000_000,
            Duration.ofSeconds(30));
        WritableWatch watch = WritableWatch.start(stack.servers())) {
      outside.awaitAcknowledged(50, Duration.ofSeconds(30));
      inside.awaitAcknowledged(50, Duration.ofSeconds(30));
      candidate.awaitCaughtUpWith(old, TIMEOUT);
      Map<String, Integer> eventsBefore = eventCounts();
      String before = Instant.now().toString();
      long darkAt = System.nanoTime();
      long darkAtMs = System.currentTimeMillis();
      network.darken(dark);
      int[] waiting = new int[1];
      long fencedAt = awaitReadOnly(old, darkAt, waiting);
      await(() -> succeededSince(before), "status.emergencyFailover Succeeded after " + dark + " went dark");
      int ackedAfter = outside.acknowledgedCount();
      outside.awaitAcknowledged(ackedAfter + 20, TIMEOUT);
      long connected = connects.stream().filter(c -> c[0] > darkAt && c[1] == 1).mapToLong(c -> c[0]).min()
          .orElse(-1);
      long firstNew = outside.acks().stream().filter(a -> connected > 0 && a.sentNanos() > connected)
          .mapToLong(WriteLoad.Ack::nanos).min().orElse(-1);
      long insideAfterFence = inside.acks().stream().filter(a -> fencedAt > 0 && a.sentNanos() > fencedAt).count();
      if (comeBack) {
        network.restore(dark);
        returned = awaitReturn(from, to, eventsBefore);
      }
      outside.stop();
      inside.stop();
      watch.close();
      WritableWatch.Verdict seen = watch.verdict();
      Set<Long> onNew = new HashSet<>(DatabaseCluster.writtenIds(candidate));
      Set<Long> onOld = new HashSet<>(DatabaseCluster.writtenIds(old));
      Set<Long> acked = new HashSet<>(outside.acknowledged());
      acked.addAll(inside.acknowledged());
      long lost = acked.stream().filter(id -> !onNew.contains(id)).count();
      long unaccounted = acked.stream().filter(id -> !onNew.contains(id) && !onOld.contains(id)).count();
      long inDoubt = onOld.stream().filter(id -> id >= base && !onNew.contains(id) && !acked.contains(id)).count();
      EmergencyFailoverStatus e = stack.api().resource().getStatus().emergencyFailover();
      String outcome = e.phase() + " " + from + " -> " + stack.api().resource().getStatus().activeSite()
          + (e.reason() == null ? "" : "/" + e.reason());
      return new DarkRun(from, to, outcome, since(fencedAt, darkAt), since(firstNew, darkAt), insideAfterFence,
          acked.size(), lost, unaccounted, inDoubt, seen.most(), waiting[0], seen.most() > 1 ? "two writable: "
              + seen.firstOverlap()
              : seen.answers() + " answers" + (seen.closestHandOver() == null ? ""
                  : "; " + seen.closestHandOver()),
          returned, breakdown(timeline.after(darkAtMs), darkAtMs,
              since(connected, darkAt), since(firstNew, darkAt)),
          e.oldPrimaryWait() == null ? null : e.oldPrimaryWait().detail());
    } finally {
      network.restore(dark);
    }
  }

  /**
   * The primary's region flaps: dark for {@code blip} (shorter than detection: nothing may fail
   * over), then dark 5 s, back 1 s, dark 5 s again. Returns the failovers started in all (at most
   * one may promote: a run that finds the failed primary answering again does nothing), the most
   * servers writable at once, and the writes accounted for.
   */
  public String flap(Duration blip, List<String> problems) {
    String from = stack.api().resource().getStatus().activeSite();
    String dark = network.regionOf(from);
    long base = nextIds();
    Map<String, Integer> eventsBefore = eventCounts();
    try (WriteLoad outside = WriteLoad.start(() -> network.routedJdbcUrl(CONTROL_PLANE_REGION), Duration.ofMillis(5),
        base); WritableWatch watch = WritableWatch.start(stack.servers())) {
      outside.awaitAcknowledged(50, Duration.ofSeconds(30));
      network.darken(dark);
      Playground.sleep(blip.toMillis());
      network.restore(dark);
      Playground.sleep(5_000);
      int afterBlip = started(eventsBefore);
      String activeAfterBlip = stack.api().resource().getStatus().activeSite();
      if (afterBlip != 0 || !from.equals(activeAfterBlip)) {
        problems.add("a " + blip.toMillis() + " ms blip started " + afterBlip + " failovers (active " + activeAfterBlip
            + ")");
      }
      network.darken(dark);
      Playground.sleep(5_000);
      network.restore(dark);
      Playground.sleep(1_000);
      network.darken(dark);
      Playground.sleep(5_000);
      network.restore(dark);
      // Settled: no failover running, the active site writable and routed, writes flowing.
      await(() -> !"Running".equals(stack.api().emergencyPhase()) && stack.writableSites()
          .equals(List.of(stack.api().resource().getStatus().activeSite())), "one writable primary after the flaps");
      int ackedNow = outside.acknowledgedCount();
      outside.awaitAcknowledged(ackedNow + 20, TIMEOUT);
      outside.stop();
      watch.close();
      // At most one failover: one promotion. A run the region's return made pointless (the failed
      // primary answered right before its fence: PrimaryAnswered, nothing done) is no failover,
      // and the next darkness may start another.
      int failovers = started(eventsBefore);
      int promoted = counted("FailoverExecuted", eventsBefore);
      if (promoted > 1) {
        problems.add(promoted + " failovers promoted for one flapping region: " + emergencyEvents());
      }
      WritableWatch.Verdict seen = watch.verdict();
      if (seen.most() > 1) {
        problems.add("two writable: " + seen.firstOverlap());
      }
      String active = stack.api().resource().getStatus().activeSite();
      Set<Long> onActive = new HashSet<>(DatabaseCluster.writtenIds(stack.server(active)));
      Set<Long> onOld = new HashSet<>(DatabaseCluster.writtenIds(stack.server(from)));
      long lost = outside.acknowledged().stream().filter(id -> !onActive.contains(id)).count();
      long unaccounted = outside.acknowledged().stream().filter(id -> !onActive.contains(id) && !onOld.contains(id))
          .count();
      if (unaccounted > 0) {
        problems.add(unaccounted + " acknowledged writes on no server");
      }
      return failovers + " failover(s) started, " + promoted + " promoted, active " + from + " -> " + active + ", "
          + seen.answers()
          + " answers, most writable " + seen.most() + ", " + outside.acknowledgedCount() + " acked, " + lost
          + " not on " + active + " (all on " + from + ": " + (unaccounted == 0) + ")";
    } finally {
      network.restore(dark);
    }
  }

  /**
   * Every region lit, one writable primary, the other servers replicating from it through their
   * regions' links and caught up; an old primary held with divergentGtid is put back as an
   * operator would after reading it: its GTID history reset to the promotion point, replicating.
   */
  public void normalise() {
    for (String site : stack.servers().keySet()) {
      network.restore(network.regionOf(site));
    }
    await(() -> !"Running".equals(stack.api().emergencyPhase()), "no emergency failover running");
    String active = stack.api().resource().getStatus().activeSite();
    await(() -> stack.writableSites().equals(List.of(active)), "only " + active + " writable");
    for (String site : stack.servers().keySet()) {
      if (site.equals(active)) {
        continue;
      }
      // The monitor's verdict on a returning old primary first: rejoined, or held.
      await(() -> replicating(site) || divergent(site) != null, site + " rejoined or held with divergentGtid");
      String promotedAt = stack.api().resource().getStatus().promotionGtidExecuted();
      if (divergent(site) != null && promotedAt != null) {
        stack.server(site).resetGtidHistoryTo(promotedAt);
        network.replicate(site, active);
      }
    }
    network.rehomeReplication();
    await(() -> stack.servers().keySet().stream().filter(s -> !s.equals(active)).allMatch(s -> replicating(s)
        && divergent(s) == null), "every other site replicating in status.sites");
  }

  /**
   * After the region came back: the old primary must stay read-only, and either rejoin (status
   * shows it replicating) or be held with divergentGtid and a RecoveryBlocked Event naming it.
   */
  private String awaitReturn(String from, String to, Map<String, Integer> eventsBefore) {
    await(() -> replicating(from) || divergent(from) != null, from + " rejoined or held with divergentGtid");
    String held = divergent(from);
    if (held == null) {
      return "rejoined as a replica of " + to;
    }
    boolean event = stack.api().events().stream().filter(e -> "RecoveryBlocked".equals(e.getReason()))
        .filter(e -> count(e) > eventsBefore.getOrDefault(e.getMetadata().getName(), 0))
        .anyMatch(e -> e.getMessage() != null && e.getMessage().contains(from));
    return "held with divergentGtid " + held
        + (event ? ", RecoveryBlocked Event names " + from : ", NO RecoveryBlocked Event");
  }

  private String outsideUrl(String survivor, List<long[]> connects) {
    String site = stack.api().routedSite().orElseThrow(() -> new IllegalStateException("no pod is labelled primary"));
    connects.add(new long[] {System.nanoTime(), site.equals(survivor) ? 1 : 0});
    return network.jdbcUrl(network.regionOf(survivor), site);
  }

  /**
   * Polls the server from inside its region every 20 ms until it answers read-only; its nanoTime,
   * or -1. Counts the commits waiting for a semi-sync acknowledgement meanwhile ({@code
   * waiting[0]}, the most seen at once).
   */
  private static long awaitReadOnly(DatabaseServer server, long since, int[] waiting) {
    long until = since + TIMEOUT.toNanos();
    while (System.nanoTime() < until) {
      try {
        if (server.isReadOnly()) {
          return System.nanoTime();
        }
        waiting[0] = Math.max(waiting[0], (int) server.queryLong("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
            + " WHERE STATE LIKE '%semi-sync%ACK%'"));
      } catch (RuntimeException e) {
        // Not answering is not read-only.
      }
      Playground.sleep(20);
    }
    return -1;
  }

  private boolean succeededSince(String before) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    EmergencyFailoverStatus e = s == null ? null : s.emergencyFailover();
    if (e != null && "Failed".equals(e.phase()) && e.startTime() != null && e.startTime().compareTo(before) >= 0) {
      throw new IllegalStateException("emergency failover failed: " + e.message());
    }
    return e != null && "Succeeded".equals(e.phase()) && e.startTime() != null && e.startTime().compareTo(before) >= 0;
  }

  private String divergent(String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.sites() == null ? null : s.sites().stream().filter(x -> site.equals(x.name()))
        .map(MysqlFailoverGroupStatus.SiteStatus::divergentGtid).filter(java.util.Objects::nonNull).findFirst()
        .orElse(null);
  }

  private boolean replicating(String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s != null && s.sites() != null && s.sites().stream()
        .anyMatch(x -> site.equals(x.name()) && Boolean.TRUE.equals(x.replicating()));
  }

  /**
   * The failovers' Events, reason and message, for a failure's message: the watcher's starts, the
   * runs' starts and ends (a PrimaryAnswered run ends FailoverRejected), the old primary's proof.
   */
  String emergencyEvents() {
    return stack.api().events().stream()
        .filter(e -> e.getReason() != null
            && (e.getReason().contains("Failover") || e.getReason().startsWith("OldPrimary")))
        .map(e -> e.getReason() + " x" + count(e) + " (" + e.getMessage() + ")")
        .collect(Collectors.joining("; "));
  }

  /** How many emergency failovers were started since {@code before} was counted. */
  int started(Map<String, Integer> before) {
    return counted("EmergencyFailoverStarted", before);
  }

  /** How many Events of {@code reason} came since {@code before}. */
  int counted(String reason, Map<String, Integer> before) {
    return stack.api().events().stream().filter(e -> reason.equals(e.getReason()))
        .mapToInt(e -> count(e) - before.getOrDefault(e.getMetadata().getName(), 0)).sum();
  }

  Map<String, Integer> eventCounts() {
    return stack.api().events().stream().collect(Collectors.toMap(e -> e.getMetadata().getName(),
        RegionStack::count, Math::max));
  }

  private static int count(Event e) {
    return e.getCount() == null ? 1 : e.getCount();
  }

  private static EmergencyFailoverBenchmark.Breakdown breakdown(KillTimeline.Steps seen, long darkAtMs,
      double writerConnected, double firstWrite) {
    return new EmergencyFailoverBenchmark.Breakdown(sinceMs(seen.firstFailedPollMs(), darkAtMs),
        sinceMs(seen.confirmedMs(), darkAtMs), sinceMs(seen.workflowStartedMs(), darkAtMs),
        sinceMs(seen.writableMs(), darkAtMs), writerConnected, firstWrite);
  }

  private static double sinceMs(long ms, long from) {
    return ms < 0 ? -1 : ms - from;
  }

  private static double since(long nanos, long from) {
    return nanos < 0 ? -1 : (nanos - from) / 1e6;
  }

  static void await(BooleanSupplier condition, String what) {
    long until = System.nanoTime() + TIMEOUT.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < until) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (IllegalStateException e) {
        if (e.getMessage() != null && e.getMessage().startsWith("emergency failover failed")) {
          throw e;
        }
        last = e;
      } catch (RuntimeException e) {
        last = e;
      }
      Playground.sleep(20);
    }
    throw new IllegalStateException("no " + what + " within " + TIMEOUT + (last == null ? "" : "; last: " + last));
  }

  @Override
  public void close() {
    network.close();
    stack.close();
    timeline.close();
  }
}
