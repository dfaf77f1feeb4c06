package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.tls.ChannelTls;
import io.shipstream.failover.model.tls.TlsMode;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * TLS of the product's own sessions and of the channels it points, against real servers of both
 * flavors given certificates made at test time ({@link TestCertificates}: a CA, a server
 * certificate for IP 127.0.0.1 only, an unrelated CA). Per flavor a source that requires secure
 * transport and a replica with the same certificates; each case leaves the replica stopped.
 */
class TlsIT {
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));
  private static final Map<Flavor, Pair> PAIRS = new EnumMap<>(Flavor.class);

  private record Pair(TestCertificates certs, DatabaseServer source, DatabaseServer replica) {}

  private static synchronized Pair pair(Flavor flavor) {
    flavor.assumeAvailable();
    return PAIRS.computeIfAbsent(flavor, f -> {
      Path base = Path.of("target", "it-tls");
      TestCertificates certs = TestCertificates.forFlavor(f, base.resolve(f.name().toLowerCase()));
      DatabaseServer source = f.start(base, f.name().toLowerCase() + "-source", certs.serverOptions(f, true));
      DatabaseServer replica = f.start(base, f.name().toLowerCase() + "-replica", certs.serverOptions(f, true));
      return new Pair(certs, source, replica);
    });
  }

  @AfterAll
  static void stop() {
    PAIRS.values().forEach(p -> {
      p.source().close();
      p.replica().close();
    });
  }

  private static Credentials login(SessionTls tls) {
    return new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(), MariaDbServer.REPLICATION.user(),
        MariaDbServer.REPLICATION.password()).withTls(tls, null);
  }

  private static SessionTls verifying(TlsMode mode, Path ca) {
    return new SessionTls(mode, TestCertificates.read(ca), null, null);
  }

  private static MysqlAddress address(String host, DatabaseServer server) {
    return new MysqlAddress(host, server.port(), server.name());
  }

  @FlavorTest
  void sessionsAtVerifyIdentityWithAClientCertificateReachAServerRequiringSecureTransport(Flavor flavor)
      throws Exception {
    Pair p = pair(flavor);
    SessionTls tls = new SessionTls(TlsMode.VERIFY_IDENTITY, TestCertificates.read(p.certs().caCert()),
        TestCertificates.read(p.certs().clientCert()), TestCertificates.read(p.certs().clientKey()));
    MysqlConnections connections = MysqlConnections.unpooled();
    String cipher = MysqlSession.run(connections, address("127.0.0.1", p.source()), login(tls), TIMEOUTS,
        s -> s.queryFirstRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").orElseThrow().get("Value"));
    assertThat(cipher).as("the session is encrypted").isNotBlank();
    assertThat(p.source().queryString("SELECT @@global.require_secure_transport")).isIn("1", "ON");
    assertThatThrownBy(() -> MysqlSession.run(connections, address("127.0.0.1", p.source()), login(SessionTls.NONE),
        TIMEOUTS, s -> s.queryFlag("SELECT 1"))).as("a plaintext session is refused by the server")
        .isInstanceOf(MysqlException.class);
  }

  @FlavorTest
  void aServerSignedByAnotherCaIsRefusedAsATlsProblemNotAsALostServer(Flavor flavor) {
    Pair p = pair(flavor);
    for (TlsMode mode : List.of(TlsMode.VERIFY_CA, TlsMode.VERIFY_IDENTITY)) {
      assertThatThrownBy(() -> MysqlSession.run(MysqlConnections.unpooled(), address("127.0.0.1", p.source()),
          login(verifying(mode, p.certs().otherCaCert())), TIMEOUTS, s -> s.queryFlag("SELECT 1")))
          .as(mode.display()).isInstanceOfSatisfying(MysqlException.class, e -> {
            assertThat(e.tlsProblem()).as(e.describe()).isTrue();
            assertThat(e.connectionProblem()).as("the server is up: " + e.describe()).isFalse();
          });
    }
  }

  @FlavorTest
  void aNameTheCertificateDoesNotCarryIsRefusedUnderVerifyIdentityOnly(Flavor flavor) throws Exception {
    Pair p = pair(flavor);
    // The certificate names IP 127.0.0.1 only; the same server reached as "localhost".
    MysqlAddress byName = address("localhost", p.source());
    assertThatThrownBy(() -> MysqlSession.run(MysqlConnections.unpooled(), byName,
        login(verifying(TlsMode.VERIFY_IDENTITY, p.certs().caCert())), TIMEOUTS, s -> s.queryFlag("SELECT 1")))
        .isInstanceOfSatisfying(MysqlException.class, e -> assertThat(e.tlsProblem()).as(e.describe()).isTrue());
    boolean verifyCa = MysqlSession.run(MysqlConnections.unpooled(), byName,
        login(verifying(TlsMode.VERIFY_CA, p.certs().caCert())), TIMEOUTS, s -> s.queryFlag("SELECT 1"));
    assertThat(verifyCa).as("verify-ca checks the chain only").isTrue();
    boolean required = MysqlSession.run(MysqlConnections.unpooled(), byName,
        login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS, s -> s.queryFlag("SELECT 1"));
    assertThat(required).as("required encrypts without checking").isTrue();
  }

  @FlavorTest
  void aChannelTheProductPointsCarriesTheGroupsTlsAndItsIoThreadConnects(Flavor flavor) throws Exception {
    Pair p = pair(flavor);
    ChannelTls tls = new ChannelTls(TlsMode.VERIFY_IDENTITY,
        TestCertificates.serverPath(flavor, p.certs().caCert()), null, null);
    ChannelReport report = point(p, tls);
    assertThat(report.sslAllowed()).isTrue();
    assertThat(report.caFile()).isEqualTo(tls.caFile());
    assertThat(report.verifyServerCert()).isTrue();
    assertThat(report.ioConnected()).as(report.describe()).isTrue();
    assertThat(report.satisfies(tls)).isTrue();
    System.out.printf("%s channel: %s%n", flavor, report.describe());
  }

  @FlavorTest
  void aVerifyingModeWithoutACaFileIsRefusedAndTheChannelIsNotTouched(Flavor flavor) throws Exception {
    Pair p = pair(flavor);
    ChannelTls good = new ChannelTls(TlsMode.VERIFY_CA, TestCertificates.serverPath(flavor, p.certs().caCert()), null,
        null);
    point(p, good);
    try (MysqlSession s = MysqlSession.open(MysqlConnections.unpooled(), address("127.0.0.1", p.replica()),
        login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS)) {
      assertThatThrownBy(() -> SourceChange.replicateFrom(s, address("127.0.0.1", p.source()), s.credentials(),
          new ChannelTls(TlsMode.VERIFY_CA, null, null, null)))
          .isInstanceOf(ChannelTlsRefusedException.class)
          .hasMessageContaining("names no CA file for this site");
      ChannelReport after = s.dialect().channelReport(s);
      assertThat(after.caFile()).as("still the channel it had").isEqualTo(good.caFile());
      assertThat(after.ioConnected()).as(after.describe()).isTrue();
      s.dialect().stopReplica(s);
    }
  }

  /**
   * A channel checking the source against the wrong CA: the IO thread reaches a live source and
   * fails its handshake. Its error, as the watcher reads it, is no lost primary.
   */
  @FlavorTest
  void aChannelsTlsErrorIsNoLostPrimary(Flavor flavor) throws Exception {
    Pair p = pair(flavor);
    ChannelTls wrong = new ChannelTls(TlsMode.VERIFY_CA, TestCertificates.serverPath(flavor, p.certs().otherCaCert()),
        null, null);
    try (MysqlSession s = MysqlSession.open(MysqlConnections.unpooled(), address("127.0.0.1", p.replica()),
        login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS)) {
      SourceChange.replicateFrom(s, address("127.0.0.1", p.source()), s.credentials(), wrong);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      SourceView view = s.dialect().sourceView(s);
      while ((view.lastIoError() == null || view.lastIoError().isBlank()) && System.nanoTime() < deadline) {
        Thread.sleep(200);
        view = s.dialect().sourceView(s);
      }
      System.out.printf("%s IO error: %s %s%n", flavor, view.lastIoErrno(), view.lastIoError());
      assertThat(view.lastIoError()).isNotBlank();
      ReplicaView seen = new ReplicaView("pdx", true, true, view.ioState(), view.lastIoErrno(), view.lastIoError(),
          view.sourceServerId(), null, null, false, Instant.now());
      assertThat(PrimaryConfirmation.judge(new PrimaryConfirmation.Sampled(seen, seen), null, Instant.now(), null,
          Duration.ofSeconds(3))).isEqualTo(PrimaryConfirmation.Judged.UNSURE);
      s.dialect().stopReplica(s);
    }
  }

  /** Points the replica at the source with {@code tls} through the product's change of source. */
  private static ChannelReport point(Pair p, ChannelTls tls) throws Exception {
    try (MysqlSession s = MysqlSession.open(MysqlConnections.unpooled(), address("127.0.0.1", p.replica()),
        login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS)) {
      SourceChange.replicateFrom(s, address("127.0.0.1", p.source()), s.credentials(), tls);
      new ReplicationStart(s, beat -> {}).awaitRunning(s.address(), address("127.0.0.1", p.source()));
      return s.dialect().channelReport(s);
    }
  }
}
