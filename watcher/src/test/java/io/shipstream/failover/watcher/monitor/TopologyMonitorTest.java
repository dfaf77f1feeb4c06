package io.shipstream.failover.watcher.monitor;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.watcher.topology.Duties;
import io.shipstream.failover.watcher.topology.Fixtures;
import io.shipstream.failover.watcher.topology.GroupUpkeep;
import io.shipstream.failover.watcher.topology.SidecarStatusReader;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.SiteProber;
import io.shipstream.failover.watcher.topology.StartupChecks;
import io.shipstream.failover.watcher.topology.StubSidecar;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The monitor's loop with fake servers: poll, debounce, evaluate, act, status and metrics. */
class TopologyMonitorTest {
  private final Set<String> deadSites = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> polls = new ConcurrentHashMap<>();
  /** The flavor each site's server reports; MariaDB unless a test says otherwise. */
  private final Map<String, String> flavors = new ConcurrentHashMap<>();
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final List<List<SiteStatus>> written = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TopologyMetrics metrics = new TopologyMetrics(registry);
  private TopologyMonitor monitor;

  /** iad is the primary until it dies; pdx and dr replicate; a dead site refuses connections. */
  private final SiteConnector servers = new SiteConnector() {
    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      polls.merge(site.name(), 1, Integer::sum);
      TlsProblem tls = tlsSites.get(site.name());
      if (tls != null) {
        pollLog.add(site.name() + " refused " + tls);
        return SiteProber.failed(site.name(), new io.shipstream.failover.mysql.MysqlException(
            new java.sql.SQLNonTransientConnectionException("Communications link failure", "08S01", 0,
                handshake(tls))),
            Clock.systemUTC().instant());
      }
      if (site.name().equals("iad") && iadFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        pollLog.add(site.name() + " failed");
        return Probe.unreachable(site.name(), "Connection refused", Clock.systemUTC().instant());
      }
      if (deadSites.contains(site.name())) {
        pollLog.add(site.name() + " failed");
        return Probe.unreachable(site.name(), "Connection refused", Clock.systemUTC().instant());
      }
      boolean primary = site.name().equals("iad");
      if (!primary && replicasSeeIadDie && deadSites.contains("iad")) {
        pollLog.add(site.name() + " lost iad");
        return new Probe(site.name(), true, true, "0-1-10", site.name(), false, null, null,
            Clock.systemUTC().instant(), "iad").withFlavor("MariaDB")
            .withSourceIo("Connecting", "error reconnecting to "
                + "master 'repl@iad:3306' - retry-time: 2 message: Can't connect to server (111)");
      }
      pollLog.add(site.name() + " answered");
      if (primary && iadDiesAfterPoll > 0 && polls.get("iad") == iadDiesAfterPoll) {
        deadSites.add("iad");
      }
      return new Probe(site.name(), true, !primary, site.name().equals("dr") ? "0-1-9" : "0-1-10",
          site.name(), !primary, primary ? null : 0L, null, Clock.systemUTC().instant())
          .withFlavor(flavors.getOrDefault(site.name(), "MariaDB"));
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {
      effects.fence(group, site.name());
    }

    @Override
    public ReplicaView sourceView(GroupRef group, GroupConfig config, SiteSpec site, java.time.Instant at) {
      java.util.function.Function<String, ReplicaView> view = views.get(site.name());
      return view == null ? SiteConnector.super.sourceView(group, config, site, at) : view.apply(site.name());
    }
  };
  /** The sites whose server refuses the watcher's TLS handshake, and why. */
  private final Map<String, TlsProblem> tlsSites = new ConcurrentHashMap<>();

  /** A refused handshake as the JDK reports {@code problem}. */
  private static javax.net.ssl.SSLHandshakeException handshake(TlsProblem problem) {
    javax.net.ssl.SSLHandshakeException e = new javax.net.ssl.SSLHandshakeException("PKIX path validation failed");
    e.initCause(tlsCause(problem));
    return e;
  }

  private static Throwable tlsCause(TlsProblem problem) {
    return switch (problem) {
      case CertificateExpired -> new java.security.cert.CertificateExpiredException("NotAfter: 2026-12-01");
      case CertificateNotYetValid -> new java.security.cert.CertificateNotYetValidException("NotBefore: 2026-12-03");
      default -> new java.security.cert.CertificateException("PKIX path building failed");
    };
  }

  /** Every poll in order: the site and what it answered. */
  private final List<String> pollLog = new CopyOnWriteArrayList<>();
  /** Whether the replicas' own polls show their IO thread losing iad once it is dead (else they answer as ever). */
  private volatile boolean replicasSeeIadDie;
  /** How many of iad's next polls still fail before it answers again (a restart). */
  private final java.util.concurrent.atomic.AtomicInteger iadFailures = new java.util.concurrent.atomic.AtomicInteger();
  /** iad dies just after answering its poll number this (0: not so). */
  private volatile int iadDiesAfterPoll;
  /** How each replica sees iad when the monitor asks (holistic detection); a site not here cannot be asked. */
  private final Map<String, java.util.function.Function<String, ReplicaView>> views = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger heartbeats = new java.util.concurrent.atomic.AtomicInteger();

  private static ReplicaView lostIad(String site) {
    return new ReplicaView(site, true, true, "Connecting", 2003, "error reconnecting to master 'repl@iad:3306' - "
        + "Can't connect to server (111)", "iad", null, "bin.1:400", true, Clock.systemUTC().instant());
  }

  private ReplicaView hearsIad(String site) {
    return new ReplicaView(site, true, true, "Yes", 0, "", "iad", null, "bin.1:400 heartbeats "
        + heartbeats.incrementAndGet(), true, Clock.systemUTC().instant());
  }

  private MysqlFailoverGroup group() {
    return Fixtures.group(ORDERS, "iad");
  }

  private void start() {
    start(group(), Duties.Startup.OFF);
  }

  private void start(MysqlFailoverGroup g, Duties.Startup startup) {
    start(g, startup, Duties.Upkeep.OFF);
  }

  private void start(MysqlFailoverGroup g, Duties.Startup startup, Duties.Upkeep upkeep) {
    monitor = new TopologyMonitor(servers, new VerdictReactions(effects), (ref, sites) -> written.add(sites),
        metrics, ref -> ref.equals(ORDERS) ? Optional.of(g) : Optional.empty(),
        Clock.systemUTC(), Duties.Recovery.OFF, startup, upkeep);
    monitor.onAdd(g);
  }

  /** The group with these sidecar URLs by site name. */
  private MysqlFailoverGroup withSidecars(Map<String, String> urls) {
    MysqlFailoverGroup g = group();
    MysqlFailoverGroupSpec spec = g.getSpec();
    List<SiteSpec> sites = spec.sites().stream().map(t -> new SiteSpec(t.name(), t.role(), t.zone(), t.mysql(),
        t.podSelector(), t.taintNodeSelector(), t.lbIP(),
        urls.containsKey(t.name()) ? new SiteSpec.Sidecar(urls.get(t.name())) : null, t.dragonfly())).toList();
    g.setSpec(new MysqlFailoverGroupSpec(sites, spec.credentialsSecretRef(), spec.pollInterval(),
        spec.failureThreshold(), spec.recoveryThreshold(), spec.failoverCooldown(), spec.connectionDrainTimeout(),
        spec.plannedFailover(), spec.splitBrainPolicy(), spec.dns(), spec.sidecar(), spec.dragonfly()));
    return g;
  }

  private List<String> eventsWith(String reason) {
    return effects.events().stream().filter(e -> e.contains(" " + reason + ":")).toList();
  }

  @Test
  void aServerConfiguredToStartWritableIsOneWarningUntilItIsFixedAndThenOneNormalEvent() throws Exception {
    try (StubSidecar pdx = new StubSidecar().startsReadOnly(false)) {
      int closedPort;
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        closedPort = s.getLocalPort();
      }
      StartupChecks startup = new StartupChecks(new SidecarStatusReader(SharedToken.of("s3cret")), PROBED,
          effects::event, metrics, Duration.ofMillis(50));
      List<List<io.fabric8.kubernetes.api.model.Condition>> conditions =
          new java.util.concurrent.CopyOnWriteArrayList<>();
      GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(),
          null, null);
      start(withSidecars(Map.of("pdx", pdx.url(), "dr", "http://127.0.0.1:" + closedPort)), startup, upkeep);

      // pollInterval is 500ms, so the checks come no faster than that: three take a second or more.
      await(() -> pdx.requests() >= 3, "three checks of pdx's sidecar");
      assertThat(eventsWith("ServerStartsWritable")).singleElement().asString()
          .startsWith("Warning ").contains("'pdx'")
          .contains("MariaDB read_only=ON in [mysqld], MySQL super_read_only=ON");
      assertThat(registry.get("bloodraven_server_starts_read_only").tags("site", "pdx").gauge().value()).isZero();
      assertThat(pdx.authorizations).containsOnly("Bearer s3cret");
      // The condition too: the group is Degraded for as long as pdx would start writable.
      await(() -> !conditions.isEmpty() && degraded(conditions).getReason().equals("ServerStartsWritable"),
          "Degraded=True/ServerStartsWritable");
      assertThat(degraded(conditions).getStatus()).isEqualTo("True");
      assertThat(degraded(conditions).getMessage()).contains("site pdx is configured to start writable");

      pdx.startsReadOnly(true);
      await(() -> !eventsWith("ServerStartsReadOnly").isEmpty(), "the Normal Event of the fix");
      int seen = pdx.requests();
      await(() -> pdx.requests() >= seen + 2, "two more checks of pdx's sidecar");
      assertThat(eventsWith("ServerStartsReadOnly")).singleElement().asString().startsWith("Normal ");
      assertThat(eventsWith("ServerStartsWritable")).hasSize(1);
      assertThat(registry.get("bloodraven_server_starts_read_only").tags("site", "pdx").gauge().value())
          .isEqualTo(1.0);
      // dr's sidecar refuses connections: skipped, no Event, its gauge unknown.
      assertThat(effects.events()).noneMatch(e -> e.contains("'dr'"));
      assertThat(registry.get("bloodraven_server_starts_read_only").tags("site", "dr").gauge().value()).isNaN();
    }
  }

  /** Every site's pods declare the chart's liveness probe on the sidecar's /health. */
  private static final java.util.function.BiFunction<GroupRef, SiteSpec, GuardRestart.Reading> PROBED =
      (group, site) -> GuardRestart.Reading.probed("mysql-" + site.name() + "-0",
          io.shipstream.failover.model.SidecarLiveness.Probe.CHART);

  @Test
  void aSidecarNoLivenessProbeRestartsMakesTheGroupDegradedWithOneWarningUntilAProbeIsDeclared() throws Exception {
    try (StubSidecar pdx = new StubSidecar().startsReadOnly(true)) {
      java.util.concurrent.atomic.AtomicReference<GuardRestart.Reading> pdxPods =
          new java.util.concurrent.atomic
          .AtomicReference<>(
              GuardRestart.Reading.noProbe("pod mysql-pdx-0 of site pdx has no container with a "
                  + "liveness probe on /health"));
      java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
      StartupChecks startup = new StartupChecks(new SidecarStatusReader(SharedToken.of("s3cret")), (group, site) -> {
        reads.incrementAndGet();
        return pdxPods.get();
      }, effects::event, metrics, Duration.ofMillis(50));
      List<List<io.fabric8.kubernetes.api.model.Condition>> conditions =
          new java.util.concurrent.CopyOnWriteArrayList<>();
      GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(),
          null, null);
      start(withSidecars(Map.of("pdx", pdx.url())), startup, upkeep);

      await(() -> reads.get() >= 3, "three reads of pdx's pods");
      assertThat(eventsWith("SidecarNotGuarded")).singleElement().asString().startsWith("Warning ")
          .contains("the sidecar of site pdx is not restarted should it hang").contains("mysql-pdx-0");
      await(() -> !conditions.isEmpty() && degraded(conditions).getReason().equals("SidecarNotGuarded"),
          "Degraded=True/SidecarNotGuarded");
      assertThat(degraded(conditions).getStatus()).isEqualTo("True");

      // An unreadable pod changes nothing: still one Warning, still Degraded.
      pdxPods.set(GuardRestart.Reading.unknown("connection refused"));
      int seen = reads.get();
      await(() -> reads.get() >= seen + 2, "two more reads");
      assertThat(eventsWith("SidecarNotGuarded")).hasSize(1);

      pdxPods.set(PROBED.apply(null, new SiteSpec("pdx", null, null, null, null, null, null, null, null)));
      await(() -> !degraded(conditions).getReason().equals("SidecarNotGuarded"),
          "Degraded no longer SidecarNotGuarded");
      assertThat(eventsWith("SidecarNotGuarded")).hasSize(1);
    }
  }

  private static io.fabric8.kubernetes.api.model.Condition degraded(
      List<List<io.fabric8.kubernetes.api.model.Condition>> written) {
    return written.get(written.size() - 1).stream().filter(c -> c.getType().equals("Degraded")).findFirst()
        .orElseThrow();
  }

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
  }

  @Test
  void aKilledPrimaryIsFailedOverFromOnceItMissedFailureThresholdPolls() {
    start();
    await(() -> !written.isEmpty(), "the first status.sites");
    assertThat(written.get(0)).extracting(SiteStatus::name, SiteStatus::state)
        .containsExactly(tuple("iad", "WRITABLE"), tuple("pdx", "READ_ONLY"), tuple("dr", "READ_ONLY"));
    assertThat(effects.starts()).isEmpty();

    deadSites.add("iad");
    await(() -> !effects.starts().isEmpty(), "an emergency failover start");

    assertThat(effects.starts()).singleElement().satisfies(p -> {
      assertThat(p.failedSite()).isEqualTo("iad");
      assertThat(p.candidate()).isEqualTo("pdx");
      assertThat(p.failedSiteLastGtid()).isEqualTo("0-1-10");
    });
    await(() -> written.get(written.size() - 1).get(0).state().equals("UNREACHABLE"), "iad UNREACHABLE in status");
    assertThat(registry.get("bloodraven_site_state").tags("site", "iad", "state", "UNREACHABLE").gauge().value())
        .isEqualTo(1.0);
    assertThat(registry.get("bloodraven_site_state").tags("site", "iad", "state", "WRITABLE").gauge().value())
        .isZero();
    assertThat(registry.get("bloodraven_poll_latency_seconds").tags("site", "pdx").timer().count()).isPositive();
    assertThat(registry.get("bloodraven_replication_lag_seconds").tags("site", "pdx").gauge().value()).isZero();
  }

  /**
   * Row 14 of the matrix as production reaches it: a planned failover past its waiting holds the
   * group's workflow id (its status says so), so the emergency start would be refused; that is a
   * FailoverBlocked Warning, not silence.
   */
  @Test
  void aPrimaryThatDiesWhileAPlannedFailoverHoldsTheGroupIsOneFailoverBlockedWarning() {
    MysqlFailoverGroup g = group();
    g.setStatus(g.getStatus().withPlannedFailover(new io.shipstream.failover.model.crd.PlannedFailoverStatus(
        "WaitingForLag", "pdx", "iad", "0-1-10", null, "2025-03-01T12:00:00Z", null, null, null, null, null,
        "waiting for pdx to catch up", null)));
    synchronized (effects) {
      effects.running = true;
    }
    start(g, Duties.Startup.OFF);
    // The run owns the status (nothing is written meanwhile): wait for every site's polls instead.
    await(() -> polls.getOrDefault("dr", 0) >= 2, "two polls of every site");

    deadSites.add("iad");
    await(() -> !eventsWith("FailoverBlocked").isEmpty(), "a FailoverBlocked Event");

    assertThat(eventsWith("FailoverBlocked")).singleElement().asString()
        .startsWith("Warning FailoverBlocked: ConcurrentOperation: the active site 'iad' is unreachable but a "
            + "failover workflow is already running");
    assertThat(effects.starts()).isEmpty();
  }

  /**
   * Item 14a of issue 31: while a failover's workflow owns the group (its status shows a run past
   * waiting) the monitor writes neither status.sites nor conditions beyond the news that the run
   * started; what changed meanwhile is written on the first evaluation after the run's terminal phase.
   */
  @Test
  void whileAFailoverRunsTheMonitorLeavesTheStatusToItAndWritesWhatChangedRightAfterItEnds() {
    MysqlFailoverGroup g = group();
    io.shipstream.failover.model.crd.PlannedFailoverStatus promoting =
        new io.shipstream.failover.model.crd.PlannedFailoverStatus("Promoting", "pdx", "iad", "0-1-10", null,
            "2025-03-01T12:00:00Z", null, null, null, null, null, "promoting pdx", null);
    g.setStatus(g.getStatus().withPlannedFailover(promoting));
    synchronized (effects) {
      effects.running = true;
    }
    List<List<io.fabric8.kubernetes.api.model.Condition>> conditions = new CopyOnWriteArrayList<>();
    // The writer stores what it wrote in the resource, as the API server would: the next pass compares with it.
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> {
      conditions.add(c);
      g.setStatus(g.getStatus().withConditions(c, generation));
    }, Clock.systemUTC(), null, null);
    start(g, Duties.Startup.OFF, upkeep);

    await(() -> polls.getOrDefault("dr", 0) >= 3, "three polls of every site");
    // The news that a run began is written once: the run's own writes are guarded, and nothing else comes between.
    assertThat(conditions).singleElement().satisfies(c -> {
      assertThat(condition(c, "Progressing").getStatus()).isEqualTo("True");
      assertThat(condition(c, "Ready").getReason()).isEqualTo("FailoverInProgress");
    });
    assertThat(written).isEmpty();

    // A site dies during the run: its state changes, and is still not written while the run owns the status.
    deadSites.add("dr");
    int seen = polls.get("dr");
    await(() -> polls.get("dr") >= seen + 2, "two polls of the dead site");
    await(() -> polls.get("iad") >= 6, "more polls of the primary");
    assertThat(written).isEmpty();
    assertThat(conditions).hasSize(1);

    // The run's terminal phase: status.sites and the conditions are written on the next evaluation.
    g.setStatus(g.getStatus().withPlannedFailover(new io.shipstream.failover.model.crd.PlannedFailoverStatus(
        "Succeeded", "pdx", "iad", "0-1-10", "0-1-10", "2025-03-01T12:00:00Z", "2025-03-01T12:00:01Z", 1.0, 0L, null,
        null, "pdx is the primary", null)));
    await(() -> !written.isEmpty(), "status.sites after the run");
    // dr is UNREACHABLE once its failed polls reach the failureThreshold; then that change is written too.
    await(() -> written.get(written.size() - 1).stream().anyMatch(x -> x.name().equals("dr")
        && x.state().equals("UNREACHABLE")), "dr UNREACHABLE in status.sites");
    await(() -> conditions.size() >= 2, "the conditions after the run");
    assertThat(condition(conditions.get(conditions.size() - 1), "Progressing").getStatus()).isEqualTo("False");
  }

  private static io.fabric8.kubernetes.api.model.Condition condition(
      List<io.fabric8.kubernetes.api.model.Condition> conditions, String type) {
    return conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
  }

  @Test
  void aKilledPrimaryThatItsReplicasLostIsFailedOverFromAfterOneFailedPoll() {
    views.put("pdx", TopologyMonitorTest::lostIad);
    views.put("dr", TopologyMonitorTest::lostIad);
    start();
    await(() -> !written.isEmpty(), "the first status.sites");
    int before = polls.get("iad");

    deadSites.add("iad");
    await(() -> !effects.starts().isEmpty(), "an emergency failover start");

    assertThat(effects.starts()).singleElement().satisfies(p -> {
      assertThat(p.candidate()).isEqualTo("pdx");
      assertThat(p.reason()).startsWith("replicas confirmed: ").contains("'pdx' lost it").contains("'dr' lost it");
    });
    // failureThreshold is 3: one failed poll and the poll after the replicas answered decided (a
    // next one may have begun meanwhile).
    assertThat(polls.get("iad") - before).isLessThanOrEqualTo(3);
    assertThat(effects.starts().get(0).reason()).contains("a poll of it begun after they answered failed too");
  }

  @Test
  void aPrimaryThatAnswersThePollAfterItsReplicasIsNotFailedOverWhateverErrorsTheyStillShow() {
    // Killed and restarted at once: its replicas still show the error of their last retry.
    views.put("pdx", TopologyMonitorTest::lostIad);
    views.put("dr", TopologyMonitorTest::lostIad);
    start();
    await(() -> !written.isEmpty(), "the first status.sites");
    int before = polls.get("iad");

    iadFailures.set(1);
    await(() -> polls.get("iad") >= before + 4, "iad polled again after the failed poll");

    assertThat(pollLog).containsSubsequence("iad failed", "iad answered");
    assertThat(effects.starts()).isEmpty();
    assertThat(written).allSatisfy(sites -> assertThat(sites.get(0).state()).isEqualTo("WRITABLE"));
  }

  @Test
  void aReplicaWhosePollShowsItLostThePrimaryHasThePrimaryPolledAndConfirmedAtOnce() {
    views.put("pdx", TopologyMonitorTest::lostIad);
    views.put("dr", TopologyMonitorTest::lostIad);
    replicasSeeIadDie = true;
    // The sites' polls are spread over the interval (iad, pdx, dr): iad dies just after answering,
    // so a replica's poll sees it first, before iad's own turn.
    iadDiesAfterPoll = 4;
    start();
    await(() -> !effects.starts().isEmpty(), "an emergency failover start");

    // A copy: the monitor goes on polling, and a view of the live list fails once it grows.
    List<String> polls = List.copyOf(pollLog);
    int firstLost = polls.indexOf(polls.stream().filter(e -> e.endsWith("lost iad")).findFirst().orElseThrow());
    assertThat(polls.subList(firstLost, polls.size())).as("the poll after the first replica that lost iad, of " + polls)
        .element(1).isEqualTo("iad failed");
    assertThat(effects.starts()).singleElement()
        .satisfies(p -> assertThat(p.reason()).startsWith("replicas confirmed: "));
  }

  @Test
  void aPrimaryItsReplicasStillHearIsNeverFailedOverFromAndTheCutOffIsOneWarningThenOneNormalEvent() {
    views.put("pdx", this::hearsIad);
    views.put("dr", this::hearsIad);
    start();
    await(() -> !written.isEmpty(), "the first status.sites");

    deadSites.add("iad");
    await(() -> !eventsWith("PrimaryUnreachableFromWatcher").isEmpty(), "the cut-off Warning");
    int at = polls.get("iad");
    // Well past failureThreshold (3 polls of 500 ms): still no failover.
    await(() -> polls.get("iad") >= at + 5, "five more failed polls of iad");
    assertThat(effects.starts()).isEmpty();
    assertThat(effects.fenced).isEmpty();
    assertThat(eventsWith("PrimaryUnreachableFromWatcher")).singleElement().asString().startsWith("Warning ")
        .contains("'pdx' still receives from it");

    deadSites.remove("iad");
    await(() -> !eventsWith("PrimaryReachableFromWatcher").isEmpty(), "the heal's Normal Event");
    assertThat(eventsWith("PrimaryReachableFromWatcher")).singleElement().asString().startsWith("Normal ");
    assertThat(effects.starts()).isEmpty();
  }

  @Test
  void serversOfBothFlavorsAreAnInvalidSpecAndNothingIsFailedOver() {
    flavors.put("pdx", "MySQL");
    List<List<io.fabric8.kubernetes.api.model.Condition>> conditions = new CopyOnWriteArrayList<>();
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(), null,
        null);
    start(group(), Duties.Startup.OFF, upkeep);

    await(() -> !eventsWith("InvalidSpec").isEmpty(), "the InvalidSpec Event");
    assertThat(eventsWith("InvalidSpec")).singleElement().asString().startsWith("Warning ")
        .contains("a group mixes MariaDB and MySQL (dr, iad are MariaDB; pdx is MySQL)")
        .contains("GTIDs of MariaDB and MySQL cannot be compared");
    await(() -> !conditions.isEmpty(), "the conditions");
    io.fabric8.kubernetes.api.model.Condition ready = conditions.get(conditions.size() - 1).stream()
        .filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("InvalidSpec");
    assertThat(ready.getMessage()).contains("GTIDs of MariaDB and MySQL cannot be compared");

    // The primary dies: a group of both flavors is never failed over.
    deadSites.add("iad");
    int seen = polls.getOrDefault("pdx", 0);
    await(() -> polls.getOrDefault("pdx", 0) >= seen + 6, "six more polls of pdx");
    assertThat(effects.starts()).isEmpty();
    synchronized (effects) {
      assertThat(effects.fenced).isEmpty();
    }

    // One flavor again: the group is Ready once more, and a dead primary is failed over.
    flavors.remove("pdx");
    await(() -> !effects.starts().isEmpty(), "an emergency failover start");
  }

  @Test
  void aSiteWhoseServerIsNotTheDeclaredFlavorIsAnInvalidSpec() {
    MysqlFailoverGroup g = group();
    MysqlFailoverGroupSpec spec = g.getSpec();
    List<SiteSpec> sites = spec.sites().stream().map(t -> t.name().equals("dr") ? t.withFlavor("mysql") : t).toList();
    g.setSpec(new MysqlFailoverGroupSpec(sites, spec.credentialsSecretRef(), spec.pollInterval(),
        spec.failureThreshold(), spec.recoveryThreshold(), spec.failoverCooldown(), spec.connectionDrainTimeout(),
        spec.plannedFailover(), spec.splitBrainPolicy(), spec.dns(), spec.sidecar(), spec.dragonfly()));
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> {}, Clock.systemUTC(), null, null);
    start(g, Duties.Startup.OFF, upkeep);

    await(() -> !eventsWith("InvalidSpec").isEmpty(), "the InvalidSpec Event");
    assertThat(eventsWith("InvalidSpec")).singleElement().asString()
        .contains("site 'dr' declares flavor: mysql but its server is MariaDB");
  }

  @Test
  void aSpecEditThatDoesNotResolveIsRefusedAndTheGroupStaysProtectedByTheSpecAcceptedBefore() {
    List<List<io.fabric8.kubernetes.api.model.Condition>> conditions = new CopyOnWriteArrayList<>();
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(), null,
        null);
    MysqlFailoverGroup g = group();
    MysqlFailoverGroupSpec accepted = g.getSpec();
    start(g, Duties.Startup.OFF, upkeep);
    await(() -> !written.isEmpty(), "the first status.sites");

    // kubectl edit with a typo: a duration that does not parse.
    MysqlFailoverGroupSpec s = accepted;
    g.setSpec(new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), "soon", s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly()));
    monitor.changed(ORDERS);
    monitor.changed(ORDERS);

    assertThat(eventsWith("InvalidSpec")).singleElement().asString().startsWith("Warning ").contains("pollInterval")
        .contains(TopologyMonitor.KEPT_SPEC);
    assertThat(monitor.acceptedSpec(ORDERS)).contains(accepted);
    await(() -> !conditions.isEmpty() && ready(conditions).getMessage().contains(TopologyMonitor.KEPT_SPEC)
        && ready(conditions).getMessage().contains("pollInterval"), "Ready naming the refused edit");
    assertThat(ready(conditions).getStatus()).isEqualTo("False");
    assertThat(ready(conditions).getReason()).isEqualTo("InvalidSpec");

    // Still polled, still failed over from.
    int seen = polls.getOrDefault("pdx", 0);
    await(() -> polls.getOrDefault("pdx", 0) >= seen + 2, "two more polls of pdx");
    deadSites.add("iad");
    await(() -> !effects.starts().isEmpty(), "an emergency failover start");
    assertThat(effects.starts()).singleElement().satisfies(p -> assertThat(p.candidate()).isEqualTo("pdx"));

    // The edit corrected: the refusal is gone from the conditions.
    g.setSpec(accepted);
    monitor.changed(ORDERS);
    await(() -> !ready(conditions).getReason().equals("InvalidSpec"), "Ready without the refusal");
    assertThat(eventsWith("InvalidSpec")).hasSize(1);
  }

  private static io.fabric8.kubernetes.api.model.Condition ready(
      List<List<io.fabric8.kubernetes.api.model.Condition>> written) {
    return written.get(written.size() - 1).stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
  }

  @Test
  void aDeadSiteIsPolledLessOftenWhileTheOthersKeepTheirPace() throws InterruptedException {
    deadSites.add("dr");
    start();
    Thread.sleep(4_000);
    monitor.close();
    // pollInterval 500ms: about 8 polls of a live site in 4s; a dead one backs off to 1s, 2s, 4s.
    assertThat(polls.get("pdx")).isGreaterThanOrEqualTo(6);
    assertThat(polls.get("dr")).isLessThan(polls.get("pdx") - 1);
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }

  @Test
  void anInvalidPromoteAnywayAnnotationOnTheResourceIsOneWarningAndDegradesTheGroupWithoutBeingTouched() {
    MysqlFailoverGroup g = group();
    g.getMetadata().setAnnotations(Map.of(io.shipstream.failover.model.topology.PromoteAnywayAnnotation.ANNOTATION,
        "sfo"));
    List<List<io.fabric8.kubernetes.api.model.Condition>> conditions = new CopyOnWriteArrayList<>();
    start(g, Duties.Startup.OFF,
        new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(), null, null));

    await(() -> !conditions.isEmpty() && degraded(conditions).getReason().equals("PromoteAnywayRejected"),
        "Degraded=True/PromoteAnywayRejected");
    int seen = polls.getOrDefault("iad", 0);
    await(() -> polls.getOrDefault("iad", 0) >= seen + 2, "two more polls");

    assertThat(degraded(conditions).getMessage()).contains("names 'sfo', which is not a site of the group");
    assertThat(eventsWith("PromoteAnywayRejected")).singleElement().asString().startsWith("Warning ");
    assertThat(effects.removedAnnotations).isEmpty();
    assertThat(effects.starts()).isEmpty();
  }

  @Test
  void aValidPromoteAnywayAnnotationOnAHealthyGroupIsRemoved() {
    MysqlFailoverGroup g = group();
    g.getMetadata().setAnnotations(Map.of(io.shipstream.failover.model.topology.PromoteAnywayAnnotation.ANNOTATION,
        "pdx"));
    start(g, Duties.Startup.OFF);

    await(() -> !effects.removedAnnotations.isEmpty(), "the request removed");
    assertThat(effects.removedAnnotations).containsExactly("bloodraven.shipstream.io/promote-anyway=pdx");
    assertThat(eventsWith("PromoteAnywayRejected")).singleElement().asString().contains("a site is writable");
    assertThat(effects.starts()).isEmpty();
  }

  /**
   * A live primary whose certificate expired (and a replica's whose is not valid yet), as the
   * watcher's own poll meets them: a Warning Event and Degraded naming each site and why, a metric
   * per site and reason, and nothing fenced or failed over however long it lasts, though the
   * replicas' channels fail too (error 2026). Fixed, the group is no longer Degraded for it.
   */
  @Test
  void aPrimaryWhoseCertificateExpiredIsNamedPerSiteAndReasonAndNeitherFencedNorFailedOver() {
    tlsSites.put("iad", TlsProblem.CertificateExpired);
    tlsSites.put("dr", TlsProblem.CertificateNotYetValid);
    views.put("pdx", site -> new ReplicaView(site, true, true, "Connecting", 2026, "error connecting to master"
        + " 'repl@iad:3306' - retry-time: 2  maximum-retries: 100000  message: SSL connection error:"
        + " error:00000000:lib(0)::reason(0)", "iad", null, "bin.1:400", true, Clock.systemUTC().instant()));
    List<List<io.fabric8.kubernetes.api.model.Condition>> conditions = new CopyOnWriteArrayList<>();
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(), null,
        null);
    start(group(), Duties.Startup.OFF, upkeep);

    await(() -> !eventsWith("TlsError").isEmpty(), "the TlsError Event");
    assertThat(eventsWith("TlsError").get(0)).startsWith("Warning ")
        .contains("site 'iad': TLS: CertificateExpired: its certificate has expired (Communications link failure)")
        .contains("site 'dr': TLS: CertificateNotYetValid: its certificate is not valid yet")
        .contains("not counted as lost");
    await(() -> !conditions.isEmpty() && degraded(conditions).getReason().equals("TlsError"), "Degraded: TlsError");
    assertThat(degraded(conditions).getStatus()).isEqualTo("True");
    assertThat(degraded(conditions).getMessage()).contains("site 'iad'", "CertificateExpired", "site 'dr'",
        "CertificateNotYetValid");
    await(() -> registry.find("bloodraven_mysql_tls_errors").tags("site", "iad", "reason", "CertificateExpired")
        .counter() != null, "the metric");
    assertThat(registry.get("bloodraven_mysql_tls_errors").tags("site", "dr", "reason", "CertificateNotYetValid")
        .counter().count()).isPositive();

    // The refusing sites are polled at the pace of an unreachable one; the passes go on at pdx's.
    int seen = polls.getOrDefault("pdx", 0);
    await(() -> polls.getOrDefault("pdx", 0) >= seen + 6, "six more polls of pdx");
    assertThat(polls.get("iad")).as("iad is still polled").isGreaterThan(1);
    assertThat(effects.starts()).as("a live primary with an expired certificate is not failed over").isEmpty();
    synchronized (effects) {
      assertThat(effects.fenced).isEmpty();
    }

    tlsSites.clear();
    await(() -> !degraded(conditions).getReason().equals("TlsError"), "TlsError cleared");
    assertThat(effects.starts()).isEmpty();
  }

  private static void await(BooleanSupplier condition, String what) {
    Fixtures.await(condition, what, Duration.ofSeconds(15));
  }
}
