package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.tls.TlsMode;
import io.shipstream.failover.mysql.ChannelReport;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.SessionTls;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TestAuthority;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole system with TLS on, once per flavor (a stack of each, shared by its tests in order):
 * every server has certificates made for the run and requires secure transport, the group's
 * spec.tls asks verify-identity of the worker's and the watcher's sessions (CA and client
 * certificate in a Secret) and of every channel. A planned failover, then an emergency failover
 * with the old primary's rejoin, leave every channel they pointed encrypted and connected, as each
 * server reports it and as each workflow recorded it (status.*Failover.channels and a
 * ReplicationChannelsVerified Event); a Secret rotated to the wrong CA is reported and changes nothing.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TlsFailoverIT extends StackPerClass {
  private static final Duration END = Duration.ofSeconds(90);
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));

  private static void use(Flavor flavor) {
    stackOf(flavor, new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3,
        true).withTls());
  }

  private static Credentials login(SessionTls tls) {
    return new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(), null, null).withTls(tls, null);
  }

  /** The channel of {@code site}'s server as it reports it, read over an encrypted session. */
  private static ChannelReport channel(String site) {
    DatabaseServer s = stack.server(site);
    try {
      return MysqlSession.run(MysqlConnections.unpooled(), MysqlAddress.of(s.host(), s.port()),
          login(new SessionTls(TlsMode.REQUIRED, null, null, null)), TIMEOUTS, x -> x.dialect().channelReport(x));
    } catch (MysqlException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String caFileAsServersSeeIt() {
    return TestAuthority.serverPath(stack.flavor(), stack.certificates().orElseThrow().caCert());
  }

  /** Waits until {@code site}'s channel reports verify-identity TLS with the group's CA and its IO thread connected. */
  private static void awaitEncryptedAndConnected(String site) {
    Await.until(stack, () -> {
      ChannelReport r = channel(site);
      return r.sslAllowed() && r.verifyServerCert() && caFileAsServersSeeIt().equals(r.caFile()) && r.ioConnected();
    }, Duration.ofSeconds(30), site + "'s channel encrypted (verify-identity, the group's CA) and connected");
    System.out.printf("%s %s: %s%n", stack.flavor(), site, channel(site).describe());
  }

  @FlavorTest
  @Order(1)
  void theProductsSessionsAreVerifyIdentityAgainstServersRequiringSecureTransport(Flavor flavor) throws Exception {
    use(flavor);
    for (DatabaseServer s : stack.servers().values()) {
      assertThat(s.queryString("SELECT @@global.require_secure_transport")).as(s.name()).isIn("1", "ON");
      assertThatThrownBy(() -> MysqlSession.run(MysqlConnections.unpooled(), MysqlAddress.of(s.host(), s.port()),
          login(SessionTls.NONE), TIMEOUTS, x -> x.queryFlag("SELECT 1"))).as("plaintext to " + s.name())
          .isInstanceOf(MysqlException.class);
    }
    // Adopted and Ready: the watcher polled every site with verify-identity sessions.
    Await.until(stack, () -> ready(), Duration.ofSeconds(30), "Ready=True");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
    assertThat(stack.api().eventReasons()).doesNotContain("TlsError");
    // The stack's own channels, set up before the product pointed any, already check the CA.
    awaitEncryptedAndConnected("pdx");
  }

  @FlavorTest
  @Order(2)
  void aPlannedFailoverLeavesEveryChannelItPointedEncryptedAndConnected(Flavor flavor) {
    use(flavor);
    String before = Instant.now().toString();
    stack.api().annotate("pdx");
    PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
    assertThat(s.phase()).as(s.message()).isEqualTo("Succeeded");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    // The old primary rejoined and the dr-only replica followed: both pointed by the product.
    for (String site : List.of("iad", "dr")) {
      awaitEncryptedAndConnected(site);
      DatabaseServer server = stack.server(site);
      assertThat(server.replicaStatus().sourcePort()).as(site).isEqualTo(stack.server("pdx").port());
    }
    // The workflow's own read-back of both channels, in the status and one Normal Event.
    Await.until(stack, () -> stack.api().resource().getStatus().plannedFailover().channels() != null,
        Duration.ofSeconds(30), "status.plannedFailover.channels");
    assertRecorded(stack.api().resource().getStatus().plannedFailover().channels(), "pdx", "iad", "dr");
    assertVerifiedEvent(1, "iad from pdx", "dr from pdx");
  }

  /** Each channel of {@code sites} recorded as verify-identity TLS with the group's CA, connected to {@code source}. */
  private static void assertRecorded(List<ChannelCheck> channels, String source, String... sites) {
    assertThat(channels).extracting(ChannelCheck::site).containsExactlyInAnyOrder(sites);
    for (ChannelCheck c : channels) {
      assertThat(c.source()).as(c.site()).isEqualTo(source);
      assertThat(c.mode()).as(c.site()).isEqualTo("verify-identity");
      assertThat(c.ssl()).as(c.site()).isTrue();
      assertThat(c.caFile()).as(c.site()).isEqualTo(caFileAsServersSeeIt());
      assertThat(c.verifyServerCert()).as(c.site()).isTrue();
      assertThat(c.ioConnected()).as(c.site()).isTrue();
      assertThat(c.asGroupAsks()).as(c.site() + ": " + c.problem()).isTrue();
      assertThat(c.problem()).as(c.site()).isNull();
    }
  }

  /** The {@code n}th ReplicationChannelsVerified Event names every channel, and none came as a Warning. */
  private static void assertVerifiedEvent(int n, String... channels) {
    Await.until(stack, () -> stack.api().eventMessages("ReplicationChannelsVerified").size() >= n,
        Duration.ofSeconds(30), "ReplicationChannelsVerified Event number " + n);
    assertThat(stack.api().eventReasons()).doesNotContain("ReplicationChannelsUnverified");
    assertThat(stack.api().eventMessages("ReplicationChannelsVerified").get(n - 1))
        .contains("verify-identity").contains(channels).contains("CA " + caFileAsServersSeeIt() + ", name checked");
  }

  @FlavorTest
  @Order(3)
  void anEmergencyFailoverAndTheOldPrimarysRejoinKeepEveryChannelEncrypted(Flavor flavor) {
    use(flavor);
    DatabaseServer pdx = stack.server("pdx");
    stack.server("iad").awaitCaughtUpWith(pdx, Duration.ofSeconds(30));
    pdx.kill9();
    Await.until(stack, () -> "iad".equals(stack.api().resource().getStatus().activeSite()), END,
        "iad to replace the killed pdx");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), END, "the emergency failover");
    awaitEncryptedAndConnected("dr");
    // The survivor the failover re-pointed, read back by the workflow: the status and the Event.
    Await.until(stack, () -> stack.api().resource().getStatus().emergencyFailover().channels() != null,
        Duration.ofSeconds(30), "status.emergencyFailover.channels");
    assertRecorded(stack.api().resource().getStatus().emergencyFailover().channels(), "iad", "dr");
    assertVerifiedEvent(2, "dr from iad");
    pdx.restart();
    Await.until(stack, () -> pdx.replicaStatus().running() && pdx.replicaStatus().sourcePort() == stack.server("iad")
        .port(), Duration.ofSeconds(60), "pdx rejoined as a replica of iad");
    awaitEncryptedAndConnected("pdx");
  }

  @FlavorTest
  @Order(4)
  void aSecretRotatedToTheWrongCaIsReportedAndFencesNothing(Flavor flavor) {
    use(flavor);
    String active = stack.api().resource().getStatus().activeSite();
    TestAuthority.DatabaseCertificates certs = stack.certificates().orElseThrow();
    stack.api().putTlsSecret(TestAuthority.read(certs.otherCaCert()));
    try {
      // The worker's and the watcher's logins are read again within their 30 s cache.
      Await.until(stack, () -> stack.api().eventReasons().contains("TlsError"), Duration.ofSeconds(60),
          "a TlsError Event");
      Await.until(stack, () -> degradedBy("TlsError"), Duration.ofSeconds(30), "Degraded with reason TlsError");
      assertThat(stack.api().eventMessages("TlsError")).anySatisfy(m -> assertThat(m).contains("site '"));
      // A few more polls: still nothing is fenced or failed over.
      Playground.sleep(3_000);
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo(active);
      assertThat(stack.server(active).isReadOnly()).as("the primary is not fenced").isFalse();
      assertThat(stack.api().eventReasons()).as("no failover started but the earlier one")
          .filteredOn("EmergencyFailoverStarted"::equals).hasSize(1);
    } finally {
      stack.api().putTlsSecret(TestAuthority.read(certs.caCert()));
    }
    Await.until(stack, () -> !degradedBy("TlsError"), Duration.ofSeconds(60), "TlsError cleared after the fix");
  }

  private static boolean ready() {
    var st = stack.api().resource().getStatus();
    return st != null && st.conditions() != null && st.conditions().stream()
        .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  private static boolean degradedBy(String reason) {
    var st = stack.api().resource().getStatus();
    if (st == null || st.conditions() == null) {
      return false;
    }
    for (Condition c : st.conditions()) {
      if (c.getType().equals("Degraded") && c.getStatus().equals("True") && reason.equals(c.getReason())) {
        return true;
      }
    }
    return false;
  }
}
