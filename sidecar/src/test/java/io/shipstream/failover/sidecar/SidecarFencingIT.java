package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.testsupport.ClusterPerFlavor;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two real servers of each flavor (mysqld 9.7, mariadbd), primary on site iad and replica on site
 * dfw, each with its sidecar running in-process; every test runs once per flavor on that flavor's
 * pair, started by its first test and shared by the rest. Every link a sidecar has (to the watcher, to its peer) goes through its own
 * {@link TcpProxy}, so a test can partition one site from the rest; the watcher is a {@link
 * FakeWatcher} serving {@code /active-site}.
 */
class SidecarFencingIT {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarFencingIT.class);
  private static final Duration LEASE = Duration.ofMillis(1500);
  private static final Duration INTERVAL = Duration.ofMillis(300);
  /** Room for a loaded two-core machine on top of the bounds the design promises. */
  private static final Duration SLACK = Duration.ofMillis(500);

  private static final ClusterPerFlavor CLUSTERS = new ClusterPerFlavor(Path.of("target", "it-sidecar"), 2);
  private static FakeWatcher watcher;
  private static int iadPort;
  private static int dfwPort;
  private static TcpProxy iadToWatcher;
  private static TcpProxy iadToPeer;
  private static TcpProxy dfwToWatcher;
  private static TcpProxy dfwToPeer;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private DatabaseServer primary;
  private DatabaseServer replica;
  private Sidecar iad;
  private Sidecar dfw;

  @BeforeAll
  static void startLinks() {
    watcher = new FakeWatcher(SharedToken.of(Configs.TOKEN), "iad");
    iadPort = FreePorts.next();
    dfwPort = FreePorts.next();
    iadToWatcher = TcpProxy.start("127.0.0.1", watcher.port());
    iadToPeer = TcpProxy.start("127.0.0.1", dfwPort);
    dfwToWatcher = TcpProxy.start("127.0.0.1", watcher.port());
    dfwToPeer = TcpProxy.start("127.0.0.1", iadPort);
  }

  @AfterAll
  static void stopEverything() {
    // Each in its own guard: one failing close must not leave a mariadbd behind.
    List<AutoCloseable> closeables = new java.util.ArrayList<>(List.of(iadToWatcher, iadToPeer, dfwToWatcher, dfwToPeer,
        watcher));
    closeables.add(CLUSTERS);
    for (AutoCloseable closeable : closeables) {
      if (closeable != null) {
        try {
          closeable.close();
        } catch (Exception e) {
          LOG.warn("cleanup: {}", e.toString());
        }
      }
    }
  }

  /**
   * The first step of every test: the flavor's pair (started once per class), every link healed,
   * the watcher answering that iad is active, iad's server writable and dfw's read-only.
   */
  private void start(Flavor flavor) {
    DatabaseCluster cluster = CLUSTERS.of(flavor);
    primary = cluster.primary();
    replica = cluster.replicas().get(0);
    for (TcpProxy proxy : List.of(iadToWatcher, iadToPeer, dfwToWatcher, dfwToPeer)) {
      proxy.heal();
    }
    watcher.start();
    watcher.activeSite("iad");
    primary.setReadOnly(false);
    replica.setReadOnly(true);
  }

  @AfterEach
  void stopSidecars() {
    for (Sidecar sidecar : new Sidecar[] {iad, dfw}) {
      if (sidecar != null) {
        sidecar.close();
      }
    }
  }

  @FlavorTest
  void aPrimaryThatLosesWatcherAndPeerFencesWithinLeaseTimeoutPlusOneTick(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();

    long cutAt = System.nanoTime();
    iadToWatcher.blackhole();
    iadToPeer.blackhole();
    Duration latency = awaitReadOnly(primary, cutAt, LEASE.plus(INTERVAL).plus(SLACK).multipliedBy(2));
    LOG.info("rule 2: cut to read_only in {} ms", latency.toMillis());
    awaitFencePublished(iad);

    // The lease counts from the last answer, which came about one tick before the cut (more on a
    // loaded machine, where a tick runs late): never fenced before it ran out, and soon after.
    SidecarStatus fenced = iad.status();
    assertThat(fenced.lastFenceAt()).hasValueSatisfying(at -> assertThat(at).isAfterOrEqualTo(fenced.leaseExpiresAt()));
    assertThat(latency).isLessThanOrEqualTo(LEASE.plus(INTERVAL).plus(SLACK));
    assertThat(fences(iadPort, "rule2")).isEqualTo(1);
    assertThat(fences(iadPort, "rule1")).isZero();
    assertThat(replica.isReadOnly()).isTrue();
    if (flavor == Flavor.MYSQL) {
      // MySQL's fence binds the accounts with SUPER too, the operator's among them.
      assertThat(primary.queryLong("SELECT @@global.super_read_only")).isEqualTo(1);
      assertThatThrownBy(() -> primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES ("
          + System.nanoTime() + ", NOW(6))")).hasMessageContaining("super-read-only");
    }
  }

  @FlavorTest
  void aPrimaryThatKeepsItsPeerFencesWithinOneTickOfThePeerLearningOfAFailover(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();
    try (Connection app = primary.appConnection()) {
      assertThat(query(app, "SELECT 1")).isEqualTo("1");

      // The watcher is lost to iad only; it then records a failover to dfw, which dfw's sidecar sees.
      iadToWatcher.blackhole();
      long failoverAt = System.nanoTime();
      watcher.activeSite("dfw");
      awaitTrue(() -> dfw.status().view().map(v -> v.names("dfw")).orElse(false), Duration.ofSeconds(5));
      long peerKnowsAt = System.nanoTime();
      Duration latency = awaitReadOnly(primary, peerKnowsAt, LEASE);
      LOG.info("rule 1: peer knew {} ms after the failover; fenced {} ms after the peer knew",
          Duration.ofNanos(peerKnowsAt - failoverAt).toMillis(), latency.toMillis());
      awaitFencePublished(iad);

      assertThat(latency).isLessThanOrEqualTo(INTERVAL.plus(SLACK));
      assertThat(fences(iadPort, "rule1")).isEqualTo(1);
      assertThat(fences(iadPort, "rule2")).isZero();
      assertThat(iad.status().view()).hasValueSatisfying(v -> assertThat(v.activeSite()).isEqualTo("dfw"));
      assertThat(iad.status().viewSource()).startsWith("peer ");
      // The application's session was killed with the fence: nothing keeps writing through it.
      assertThatThrownBy(() -> query(app, "SELECT 1")).isInstanceOf(SQLException.class);
    }
  }

  @FlavorTest
  void aReplicaIsNeverFencedByItsSidecar(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();
    try (Connection app = replica.appConnection()) {
      String session = query(app, "SELECT CONNECTION_ID()");

      // dfw is cut off from everyone for two leases, while the watcher says iad is active.
      dfwToWatcher.blackhole();
      dfwToPeer.blackhole();
      long until = System.nanoTime() + LEASE.multipliedBy(2).plus(INTERVAL).toNanos();
      while (System.nanoTime() < until) {
        assertThat(replica.isReadOnly()).isTrue();
        Thread.sleep(50);
      }

      assertThat(query(app, "SELECT CONNECTION_ID()")).isEqualTo(session);
      assertThat(dfw.status().leaseExpiresAt()).isBefore(Instant.now());
      assertThat(dfw.status().lastFenceAt()).isEmpty();
      for (String rule : SidecarMetrics.RULES) {
        assertThat(fences(dfwPort, rule)).as(rule).isZero();
      }
      // Its replication threads (system users) were not touched either.
      assertThat(replica.replicaStatus().running()).isTrue();
    }
  }

  @FlavorTest
  void aRestartedSidecarOnTheNonActiveSiteKeepsItsServerReadOnly(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();
    iad.close();
    // A failover to dfw happens while iad's sidecar is down, and iad's server is left writable. As
    // the workflow does it: dfw is promoted first, the failover recorded two ticks later.
    replica.setReadOnly(false);
    Thread.sleep(INTERVAL.multipliedBy(2).toMillis());
    watcher.activeSite("dfw");

    // iad's sidecar comes back partitioned: no watcher, no peer, no view.
    iadToWatcher.blackhole();
    iadToPeer.blackhole();
    long startedAt = System.nanoTime();
    iad = startIad();
    Duration bootFence = awaitReadOnly(primary, startedAt, Duration.ofSeconds(5));
    LOG.info("boot fence {} ms after the sidecar started", bootFence.toMillis());
    awaitFencePublished(iad);
    assertThat(iad.status().boot()).isEqualTo(Boot.FENCED_BY_BOOT);

    // Neither a lease running out nor the links coming back, with dfw active, lifts the fence.
    Thread.sleep(LEASE.plus(INTERVAL).toMillis());
    iadToWatcher.heal();
    iadToPeer.heal();
    awaitTrue(() -> iad.status().view().map(v -> v.names("dfw")).orElse(false), Duration.ofSeconds(5));
    long until = System.nanoTime() + INTERVAL.multipliedBy(4).toNanos();
    while (System.nanoTime() < until) {
      assertThat(primary.isReadOnly()).isTrue();
      Thread.sleep(50);
    }
    assertThat(fences(iadPort, "boot")).isEqualTo(1);
    assertThat(iad.status().boot()).isEqualTo(Boot.FENCED_BY_BOOT);
    // dfw, promoted before the status named it, is left alone by its own sidecar.
    assertThat(replica.isReadOnly()).isFalse();
    assertThat(fences(dfwPort, "rule1") + fences(dfwPort, "rule2") + fences(dfwPort, "boot")).isZero();
  }

  @FlavorTest
  void aRestartedSidecarOnTheActiveSiteLiftsItsBootFenceOnceItHearsItIsActive(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();
    iad.close();
    iadToWatcher.blackhole();
    iadToPeer.blackhole();
    long startedAt = System.nanoTime();
    iad = startIad();
    awaitReadOnly(primary, startedAt, Duration.ofSeconds(5));
    awaitFencePublished(iad);

    long restoredAt = System.nanoTime();
    iadToWatcher.heal();
    iadToPeer.heal();
    Duration unfenced = awaitTrueTimed(() -> !primary.isReadOnly(), restoredAt, Duration.ofSeconds(5));
    LOG.info("boot fence lifted {} ms after the links came back", unfenced.toMillis());

    awaitTrue(() -> iad.status().boot() == Boot.DONE, Duration.ofSeconds(2));
    assertThat(fences(iadPort, "boot")).isEqualTo(1);
    try (Connection app = primary.appConnection(); Statement statement = app.createStatement()) {
      assertThat(statement.executeUpdate("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES ("
          + System.nanoTime() + ", NOW(6))")).isEqualTo(1);
    }
  }

  @FlavorTest
  void aBriefWatcherRestartFencesNothingEvenWithThePeersUnreachable(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();
    iadToPeer.blackhole();
    dfwToPeer.blackhole();

    watcher.stop();
    Thread.sleep(LEASE.dividedBy(3).toMillis());
    watcher.start();

    long until = System.nanoTime() + LEASE.plus(INTERVAL.multipliedBy(2)).toNanos();
    while (System.nanoTime() < until) {
      assertThat(primary.isReadOnly()).isFalse();
      Thread.sleep(20);
    }
    assertThat(iad.status().lastAction()).isEqualTo(Action.NONE);
    for (String rule : SidecarMetrics.RULES) {
      assertThat(fences(iadPort, rule)).as(rule).isZero();
    }
  }

  @FlavorTest
  void aLongWatcherOutageFencesNothingWhileThePeersAnswer(Flavor flavor) throws Exception {
    start(flavor);
    startBothAndAwaitSteadyState();

    watcher.stop();
    long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
    while (System.nanoTime() < until) {
      assertThat(primary.isReadOnly()).isFalse();
      Thread.sleep(20);
    }
    assertThat(fences(iadPort, "rule2")).isZero();
    assertThat(iad.status().lastWatcherContact()).isPresent();
    assertThat(iad.status().leaseExpiresAt()).isAfter(Instant.now());
  }

  private void startBothAndAwaitSteadyState() throws InterruptedException {
    iad = startIad();
    dfw = startDfw();
    awaitTrue(() -> steady(iad) && steady(dfw), Duration.ofSeconds(10));
  }

  /**
   * The server turns read-only in the middle of the tick that fences; the counter and the status
   * follow at the end of it.
   */
  private static void awaitFencePublished(Sidecar sidecar) throws InterruptedException {
    awaitTrue(() -> sidecar.status().lastFenceAt().isPresent(), Duration.ofSeconds(2));
  }

  private static boolean steady(Sidecar sidecar) {
    SidecarStatus status = sidecar.status();
    return status.boot() == Boot.DONE && status.lastWatcherContact().isPresent()
        && status.peers().stream().allMatch(peer -> peer.lastContact().isPresent());
  }

  private Sidecar startIad() {
    return Sidecar.start(config("iad", primary, iadPort, iadToWatcher, iadToPeer));
  }

  private Sidecar startDfw() {
    return Sidecar.start(config("dfw", replica, dfwPort, dfwToWatcher, dfwToPeer));
  }

  private static SidecarConfig config(String site, DatabaseServer server, int httpPort, TcpProxy toWatcher,
      TcpProxy toPeer) {
    return Configs.config(site, toWatcher.httpUrl(), List.of(toPeer.httpUrl()), LEASE, INTERVAL, Map.of(
        "MYSQL_PORT", Integer.toString(server.port()),
        "MYSQL_USER", MariaDbServer.ADMIN.user(),
        "MYSQL_PASSWORD", MariaDbServer.ADMIN.password(),
        "SPARE_USERS", MariaDbServer.REPLICATION.user(),
        "HTTP_PORT", Integer.toString(httpPort)));
  }

  /** Waits until the server is read-only; returns the time from {@code since}. */
  private static Duration awaitReadOnly(DatabaseServer server, long since, Duration timeout)
      throws InterruptedException {
    return awaitTrueTimed(server::isReadOnly, since, timeout);
  }

  private static Duration awaitTrueTimed(BooleanSupplier condition, long since, Duration timeout)
      throws InterruptedException {
    long deadline = since + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + timeout.toMillis() + " ms");
      }
      Thread.sleep(5);
    }
    return Duration.ofNanos(System.nanoTime() - since);
  }

  private static void awaitTrue(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    awaitTrueTimed(condition, System.nanoTime(), timeout);
  }

  /** The fence counter as Prometheus scrapes it from the sidecar. */
  private double fences(int port, String rule) throws IOException, InterruptedException {
    // The series also carry the sidecar's group and site.
    String prefix = "bloodraven_sidecar_fences_total{";
    String label = "rule=\"" + rule + "\"";
    String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return body.lines().filter(line -> line.startsWith(prefix) && line.contains(label))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + " in\n" + body));
  }

  private static String query(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }
}
