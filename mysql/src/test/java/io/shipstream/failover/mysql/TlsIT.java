package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.tls.ChannelTls;
import io.shipstream.failover.model.tls.TlsMode;
import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TestAuthority;
import io.shipstream.failover.testsupport.TestAuthority.DatabaseCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * TLS of the product's own sessions and of the channels it points, against real servers of both
 * flavors given certificates made at test time ({@link TestAuthority#forDatabases}: a CA, a server
 * certificate for IP 127.0.0.1 only, an unrelated CA). Per flavor a source that requires secure
 * transport and a replica with the same certificates; each case leaves the replica stopped. A
 * third server per flavor, started by the first case that needs it, is given a certificate of the
 * same CA outside its validity window (expired, not valid yet), swapped in without a restart.
 */
class TlsIT {
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));
  private static final Map<Flavor, Pair> PAIRS = new EnumMap<>(Flavor.class);

  private static final Map<Flavor, DatabaseServer> DATED = new EnumMap<>(Flavor.class);

  private record Pair(DatabaseCertificates certs, DatabaseServer source, DatabaseServer replica) {}

  private static synchronized Pair pair(Flavor flavor) {
    flavor.assumeAvailable();
    return PAIRS.computeIfAbsent(flavor, f -> {
      Path base = Path.of("target", "it-tls");
      DatabaseCertificates certs = TestAuthority.forDatabases(f, base.resolve(f.name().toLowerCase()));
      DatabaseServer source = f.start(base, f.name().toLowerCase() + "-source", certs.serverOptions(f, true));
      DatabaseServer replica = f.start(base, f.name().toLowerCase() + "-replica", certs.serverOptions(f, true));
      return new Pair(certs, source, replica);
    });
  }

  /**
   * The flavor's dated server, now presenting a certificate of the pair's CA for 127.0.0.1 valid
   * from {@code notBefore} to {@code notAfter}. MariaDB reloads the replaced files ({@code FLUSH
   * SSL}); MySQL refuses to reload a certificate outside its dates ("Invalid certificates") and
   * only warns at startup, so it is restarted with them. Neither requires secure transport: the
   * harness's own sessions to the MySQL one are plaintext (see MySqlServer#jdbcUrl).
   */
  private static synchronized DatabaseServer dated(Flavor flavor, Instant notBefore, Instant notAfter) {
    Pair p = pair(flavor);
    TestAuthority.Issued cert = p.certs().ca().issue(p.certs().directory(), "dated", notBefore, notAfter,
        "127.0.0.1");
    DatabaseServer server = DATED.get(flavor);
    if (server == null) {
      server = flavor.start(Path.of("target", "it-tls"), flavor.name().toLowerCase() + "-dated",
          TestAuthority.serverOptions(flavor, p.certs().caCert(), cert, false));
      DATED.put(flavor, server);
    } else if (flavor == Flavor.MYSQL) {
      server.restart();
    } else {
      server.execute("FLUSH SSL");
    }
    return server;
  }

  @AfterAll
  static void stop() {
    PAIRS.values().forEach(p -> {
      p.source().close();
      p.replica().close();
    });
    DATED.values().forEach(DatabaseServer::close);
  }

  private static Credentials login(SessionTls tls) {
    return new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(), MariaDbServer.REPLICATION.user(),
        MariaDbServer.REPLICATION.password()).withTls(tls, null);
  }

  private static SessionTls verifying(TlsMode mode, Path ca) {
    return new SessionTls(mode, TestAuthority.read(ca), null, null);
  }

  private static MysqlAddress address(String host, DatabaseServer server) {
    return new MysqlAddress(host, server.port(), server.name());
  }

  @FlavorTest
  void sessionsAtVerifyIdentityWithAClientCertificateReachAServerRequiringSecureTransport(Flavor flavor)
      throws Exception {
    Pair p = pair(flavor);
    SessionTls tls = new SessionTls(TlsMode.VERIFY_IDENTITY, TestAuthority.read(p.certs().caCert()),
        TestAuthority.read(p.certs().clientCert()), TestAuthority.read(p.certs().clientKey()));
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
            System.out.printf("%s wrong CA %s: %s%n", flavor, mode.display(), e.describe());
            assertThat(e.tlsReason()).as(e.describe()).contains(TlsProblem.UnknownCertificateAuthority);
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
        .isInstanceOfSatisfying(MysqlException.class, e -> {
          System.out.printf("%s wrong name: %s%n", flavor, e.describe());
          assertThat(e.tlsReason()).as(e.describe()).contains(TlsProblem.HostnameMismatch);
        });
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
        TestAuthority.serverPath(flavor, p.certs().caCert()), null, null);
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
    ChannelTls good = new ChannelTls(TlsMode.VERIFY_CA, TestAuthority.serverPath(flavor, p.certs().caCert()), null,
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
    ChannelTls wrong = new ChannelTls(TlsMode.VERIFY_CA, TestAuthority.serverPath(flavor, p.certs().otherCaCert()),
        null, null);
    SourceView view = ioErrorOfAChannelTo(p, p.source(), wrong);
    assertThat(judged(view)).as(view.lastIoError()).isEqualTo(PrimaryConfirmation.Judged.UNSURE);
  }

  /**
   * A live server whose certificate expired: the product's verifying sessions are refused, named
   * CertificateExpired, and not taken for a server lost. A replica's channel to it fails its
   * handshake, and that is no lost primary either: a live primary with an expired certificate is
   * not failed over.
   */
  @FlavorTest
  void aServerWhoseCertificateExpiredIsRefusedAsExpiredAndIsNoLostPrimary(Flavor flavor) throws Exception {
    Instant now = Instant.now();
    outsideItsDates(flavor, now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)),
        TlsProblem.CertificateExpired);
  }

  /** The same for a certificate not valid yet (a clock behind, a certificate issued for a later rollout). */
  @FlavorTest
  void aServerWhoseCertificateIsNotValidYetIsRefusedAsNotYetValidAndIsNoLostPrimary(Flavor flavor)
      throws Exception {
    Instant now = Instant.now();
    outsideItsDates(flavor, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)),
        TlsProblem.CertificateNotYetValid);
  }

  /**
   * The dated server with a certificate valid from {@code notBefore} to {@code notAfter}: the
   * sessions are refused for {@code expected}, and a channel to it is no lost primary.
   */
  private static void outsideItsDates(Flavor flavor, Instant notBefore, Instant notAfter, TlsProblem expected)
      throws Exception {
    DatabaseServer server = dated(flavor, notBefore, notAfter);
    refusedAs(flavor, server, expected);
    SourceView view = ioErrorOfAChannelTo(pair(flavor), server,
        new ChannelTls(TlsMode.VERIFY_CA, TestAuthority.serverPath(flavor, pair(flavor).certs().caCert()), null, null));
    assertThat(judged(view)).as(view.lastIoError()).isEqualTo(PrimaryConfirmation.Judged.UNSURE);
  }

  /**
   * Sessions verifying {@code server} are refused for {@code expected}. One that only encrypts gets
   * in on MariaDB, so the server is up; Connector/J checks the dates even then.
   */
  private static void refusedAs(Flavor flavor, DatabaseServer server, TlsProblem expected) throws Exception {
    Pair p = pair(flavor);
    for (TlsMode mode : List.of(TlsMode.VERIFY_CA, TlsMode.VERIFY_IDENTITY)) {
      assertThatThrownBy(() -> MysqlSession.run(MysqlConnections.unpooled(), address("127.0.0.1", server),
          login(verifying(mode, p.certs().caCert())), TIMEOUTS, s -> s.queryFlag("SELECT 1")))
          .as(mode.display()).isInstanceOfSatisfying(MysqlException.class, e -> {
            System.out.printf("%s %s %s: %s%n", flavor, expected, mode.display(), e.describe());
            assertThat(e.tlsReason()).as(e.describe()).contains(expected);
            assertThat(e.tlsProblem()).as(e.describe()).isTrue();
            assertThat(e.connectionProblem()).as("the server is up: " + e.describe()).isFalse();
          });
    }
    SessionTls required = new SessionTls(TlsMode.REQUIRED, null, null, null);
    if (flavor == Flavor.MYSQL) {
      // Connector/J checks a server certificate's dates even where it verifies nothing.
      assertThatThrownBy(() -> MysqlSession.run(MysqlConnections.unpooled(), address("127.0.0.1", server),
          login(required), TIMEOUTS, s -> s.queryFlag("SELECT 1")))
          .isInstanceOfSatisfying(MysqlException.class, e -> assertThat(e.tlsReason()).contains(expected));
    } else {
      boolean in = MysqlSession.run(MysqlConnections.unpooled(), address("127.0.0.1", server), login(required),
          TIMEOUTS, s -> s.queryFlag("SELECT 1"));
      assertThat(in).as("the server is up: a session that does not verify gets in").isTrue();
    }
  }

  /** How the watcher judges the primary from a replica's channel reading {@code view}. */
  private static PrimaryConfirmation.Judged judged(SourceView view) {
    ReplicaView seen = new ReplicaView("pdx", true, true, view.ioState(), view.lastIoErrno(), view.lastIoError(),
        view.sourceServerId(), null, null, false, Instant.now());
    return PrimaryConfirmation.judge(new PrimaryConfirmation.Sampled(seen, seen), null, Instant.now(), null,
        Duration.ofSeconds(3));
  }

  /**
   * Points the pair's replica at {@code source} with {@code tls} and returns its channel once the
   * IO thread has reported an error (within 20 s); the replica is left stopped.
   */
  private static SourceView ioErrorOfAChannelTo(Pair p, DatabaseServer source, ChannelTls tls) throws Exception {
    try (MysqlSession s = MysqlSession.open(MysqlConnections.unpooled(), address("127.0.0.1", p.replica()),
        login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS)) {
      SourceChange.replicateFrom(s, address("127.0.0.1", source), s.credentials(), tls);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      SourceView view = s.dialect().sourceView(s);
      while ((view.lastIoError() == null || view.lastIoError().isBlank()) && System.nanoTime() < deadline) {
        Thread.sleep(200);
        view = s.dialect().sourceView(s);
      }
      s.dialect().stopReplica(s);
      System.out.printf("%s IO error: %s %s%n", p.source().flavor(), view.lastIoErrno(), view.lastIoError());
      assertThat(view.lastIoError()).as("the IO thread's error").isNotBlank();
      // Neither flavor says why (TlsProblem); both say it is TLS, as CR_SSL_CONNECTION_ERROR.
      assertThat(view.lastIoErrno()).as(view.lastIoError()).isEqualTo(2026);
      assertThat(TlsProblem.ofServerMessage(view.lastIoError())).as(view.lastIoError())
          .contains(TlsProblem.HandshakeFailed);
      return view;
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
