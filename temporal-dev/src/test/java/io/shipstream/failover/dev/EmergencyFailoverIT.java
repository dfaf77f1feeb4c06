package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A kill -9 of the primary with the topology monitor on, once per flavor (MySQL 9.7 and MariaDB):
 * three real database servers (iad primary,
 * pdx, dr-only dr), polled every 500ms, dead after 3 missed polls. What a user sees: the active
 * site moves to the replica, the application's writes through the primary Service resume, no two
 * servers were ever writable at once, nothing acknowledged that any surviving server holds is
 * missing on the new primary, and dr replicates from the new primary afterwards. Each case has a
 * stack of its own: a killed server, an errant transaction or a cooldown would leak into the next.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
class EmergencyFailoverIT extends StackPerTest {
  @FlavorTest
  void aKilledPrimaryIsReplacedByTheFreshestReplicaWithoutLosingReplicatedWrites(Flavor flavor) throws Exception {
    start(flavor, FailoverStack.Options.emergency());
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));

    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(200, Duration.ofSeconds(30));
      DatabaseServer iad = stack.server("iad");
      // What the replicas hold right now was acknowledged and replicated before the kill: that is
      // the least that must survive.
      Set<Long> replicated = stack.awaitReplicatedFrom("iad");
      int ackedAtKill = load.acknowledgedCount();
      long killedAt = System.nanoTime();
      iad.kill9();

      String active = awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60));
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));
      report(flavor + ", replicas caught up", load, killedAt, active);

      assertThat(active).as("dr is dr-only; pdx is the freshest primary-candidate").isEqualTo("pdx");
      assertThat(stack.api().routedSite()).contains("pdx");
      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
          "the emergency failover to succeed");
      DatabaseServer pdx = stack.server("pdx");
      DatabaseServer dr = stack.server("dr");
      // Whatever row the writer had acknowledged and any survivor holds, pdx holds: at the instant
      // of the kill dr may have received a row pdx had not, and pdx catches up from dr first.
      Set<Long> onSurvivors = new HashSet<>(DatabaseCluster.writtenIds(pdx));
      onSurvivors.addAll(DatabaseCluster.writtenIds(dr));
      onSurvivors.retainAll(new HashSet<>(load.acknowledged()));
      assertThat(onSurvivors).containsAll(replicated);
      assertThat(DatabaseCluster.writtenIds(pdx)).as("acknowledged rows on pdx or dr").containsAll(onSurvivors);

      // dr replicates from the new primary: a row written after the failover reaches it.
      Await.until(stack, () -> dr.replicaStatus().running() && dr.replicaStatus().sourcePort() == pdx.port(),
          Duration.ofSeconds(30), "dr replicating from pdx");
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 10, Duration.ofSeconds(30));
      List<WriteLoad.Ack> acks = load.acks();
      long writtenAfter = acks.get(acks.size() - 1).id();
      dr.awaitCaughtUpWith(pdx, Duration.ofSeconds(30));
      assertThat(DatabaseCluster.writtenIds(dr)).contains(writtenAfter);
    } finally {
      sampler.close();
    }
    assertThat(sampler.most()).as("writable servers at any 50ms sample").isLessThanOrEqualTo(1);
    // The monitor writes a site's state once its failures reach the threshold; a failover decided
    // sooner (the replicas and sidecars confirming) can end before that write.
    Await.until(stack, () -> stack.api().resource().getStatus().sites().stream()
        .anyMatch(site -> "iad".equals(site.name()) && "UNREACHABLE".equals(site.state())),
        Duration.ofSeconds(30), "the status to show iad unreachable");
  }

  @FlavorTest
  void rowsOnlyTheDrReplicaReceivedAreCaughtUpOntoTheCandidateBeforeItIsPromoted(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer dr = stack.server("dr");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      // pdx stops receiving: what iad acknowledges from now on reaches dr only.
      pdx.stopReplicaIoThread();
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 50, Duration.ofSeconds(30));
      load.stop();
      dr.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
    }
    List<Long> onDr = DatabaseCluster.writtenIds(dr);
    assertThat(DatabaseCluster.writtenIds(pdx)).as("pdx lacks rows dr holds").hasSizeLessThan(onDr.size());

    iad.kill9();
    assertThat(awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60))).isEqualTo("pdx");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed");

    assertThat(DatabaseCluster.writtenIds(pdx)).as("every row dr held").containsAll(onDr);
    assertThat(stack.api().eventReasons()).contains("CandidateCaughtUp").doesNotContain("CatchUpFailed",
        "DataLossDetected");
    assertThat(stack.api().resource().getStatus().emergencyFailover().transactionsLost()).isZero();
    Await.until(stack, () -> dr.replicaStatus().running() && dr.replicaStatus().sourcePort() == pdx.port(),
        Duration.ofSeconds(30), "dr replicating from pdx");
    try (WriteLoad after = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1_000_000)) {
      after.awaitAcknowledged(20, Duration.ofSeconds(30));
      after.stop();
      dr.awaitCaughtUpWith(pdx, Duration.ofSeconds(30));
      assertThat(DatabaseCluster.writtenIds(dr)).containsAll(after.acknowledged());
    }
  }

  @FlavorTest
  void aLaggingReplicaWithAStoppedSqlThreadIsPromotedWithEveryRowItsIoThreadReceived(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    Set<Long> received;
    try (WriteLoad before = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      before.awaitAcknowledged(100, Duration.ofSeconds(30));
      pdx.stopReplicaSqlThread();
      int acked = before.acknowledgedCount();
      before.awaitAcknowledged(acked + 200, Duration.ofSeconds(30));
      before.stop();
      // Everything iad wrote is in pdx's relay log, and far from applied.
      String written = iad.gtidExecuted();
      Await.until(stack, () -> written.equals(pdx.replicaStatus().gtidIoPos()), Duration.ofSeconds(30),
          "pdx's IO thread receiving " + written);
      received = new HashSet<>(DatabaseCluster.writtenIds(iad));
    }
    assertThat(DatabaseCluster.writtenIds(pdx)).as("applied on pdx before the kill").hasSizeLessThan(received.size());
    assertThat(pdx.replicaStatus().sqlRunning()).isEqualTo("No");

    try (WriteLoad after = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1_000_000)) {
      after.awaitAcknowledged(20, Duration.ofSeconds(30));
      long killedAt = System.nanoTime();
      iad.kill9();

      String active = awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60));
      int ackedAtFailover = after.acknowledgedCount();
      after.awaitAcknowledged(ackedAtFailover + 20, Duration.ofSeconds(60));
      report(flavor + ", stopped SQL thread", after, killedAt, active);

      assertThat(active).isEqualTo("pdx");
      assertThat(DatabaseCluster.writtenIds(pdx)).as("rows pdx had received but not applied")
          .containsAll(new ArrayList<>(received));
    }
  }

  /** {@code rows} acknowledged through the primary Service, the writer stopped, and pdx caught up with iad. */
  private void writeThenReplicateToPdx(int rows) {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(rows, Duration.ofSeconds(30));
      load.stop();
    }
    stack.server("pdx").awaitCaughtUpWith(stack.server("iad"), Duration.ofSeconds(30));
  }

  @FlavorTest
  void theKilledPrimaryRestartedRejoinsAsAReplicaAndASecondFailureInsideTheCooldownIsNotFailedOver(Flavor flavor) {
    FailoverStack.Options withCooldown = new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "1m",
        null, "500ms", 3, true);
    start(flavor, withCooldown);
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    // Nothing only iad holds: it may rejoin.
    writeThenReplicateToPdx(100);
    iad.kill9();
    assertThat(awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60))).isEqualTo("pdx");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed");
    // The new primary takes writes before the old one comes back, as it would in production: its
    // newest GTID is then its own, and the rejoin must still see that iad holds nothing extra.
    try (WriteLoad onNewPrimary = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 500_000)) {
      onNewPrimary.awaitAcknowledged(50, Duration.ofSeconds(30));
    }

    iad.restart();
    Await.until(stack, () -> iad.replicaStatus().running() && iad.replicaStatus().sourcePort() == pdx.port(),
        Duration.ofSeconds(30), "iad replicating from pdx");
    try (WriteLoad afterRejoin = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1_000_000)) {
      afterRejoin.awaitAcknowledged(50, Duration.ofSeconds(30));
    }
    iad.awaitCaughtUpWith(pdx, Duration.ofSeconds(30));
    assertThat(iad.isReadOnly()).isTrue();
    assertThat(DatabaseCluster.writtenIds(iad)).containsAll(DatabaseCluster.writtenIds(pdx));
    assertThat(stack.api().eventReasons()).contains("RecoveryComplete").doesNotContain("RecoveryBlocked");
    Await.until(stack, () -> siteStatus("iad") != null && Boolean.TRUE.equals(siteStatus("iad").replicating()),
        Duration.ofSeconds(30), "status.sites to show iad replicating");
    assertThat(siteStatus("iad").divergentGtid()).isNull();

    // Inside the 1 minute cooldown the new primary dies too: iad could take over, but must not.
    pdx.kill9();
    Await.until(stack, () -> stack.api().eventReasons().contains("FailoverBlocked"), Duration.ofSeconds(30),
        "a FailoverBlocked Event");
    sleep(3_000);
    assertThat(stack.api().eventMessages("FailoverBlocked"))
        .anySatisfy(m -> assertThat(m).startsWith("CooldownActive"));
    assertThat(stack.api().eventReasons().stream().filter("EmergencyFailoverStarted"::equals)).hasSize(1);
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(iad.isReadOnly()).isTrue();
  }

  @FlavorTest
  void aRestartedOldPrimaryWithWritesTheNewPrimaryNeverReceivedStaysReadOnlyWithThemInStatus(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    writeThenReplicateToPdx(50);
    // pdx and dr stop receiving; iad acknowledges writes that then exist nowhere else (were dr
    // to receive them, pdx would catch up from it before its promotion and nothing would diverge).
    pdx.stopReplication();
    stack.server("dr").stopReplication();
    iad.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (-2, NOW(6))",
        "INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (-3, NOW(6))");
    iad.kill9();
    assertThat(awaitActiveSiteOtherThan("iad", Duration.ofSeconds(60))).isEqualTo("pdx");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed");

    iad.restart();
    Await.until(stack, () -> stack.api().eventReasons().contains("RecoveryBlocked"), Duration.ofSeconds(30),
        "a RecoveryBlocked Event");
    Await.until(stack, () -> siteStatus("iad") != null && siteStatus("iad").divergentGtid() != null,
        Duration.ofSeconds(30),
        "status.sites to show iad's divergent transactions");

    // iad's own transactions: under its server id in domain 0 (MariaDB), under its server_uuid (MySQL).
    assertThat(siteStatus("iad").divergentGtid()).startsWith(flavor == Flavor.MYSQL
        ? iad.queryString("SELECT @@global.server_uuid") + ":" : "0-" + iad.serverId() + "-");
    assertThat(iad.isReadOnly()).isTrue();
    assertThat(iad.replicaStatus().configured()).as("never pointed at pdx").isFalse();
    assertThat(stack.api().eventReasons()).doesNotContain("RecoveryComplete");
    assertThat(stack.api().routedSite()).contains("pdx");
  }

  @FlavorTest
  void aCandidateWithAnErrantTransactionIsNotPromoted(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
    }
    pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
    // An admin's write on the read-only replica, binlogged under pdx's own server id: errant.
    pdx.execute("SET GLOBAL read_only = 0", "INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (-1, NOW(6))",
        "SET GLOBAL read_only = 1");
    sleep(1_500);

    iad.kill9();
    Await.until(stack, () -> stack.api().eventReasons().contains("FailoverBlocked"), Duration.ofSeconds(30),
        "a FailoverBlocked Event");
    sleep(3_000);

    assertThat(stack.api().eventMessages("FailoverBlocked"))
        .anySatisfy(m -> assertThat(m).startsWith("DivergentCandidates"));
    assertThat(stack.api().eventReasons()).doesNotContain("EmergencyFailoverStarted");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
    assertThat(pdx.isReadOnly()).isTrue();
    // The group has no primary: Degraded says so, and never that every site answers.
    io.fabric8.kubernetes.api.model.Condition degraded = stack.api().condition("Degraded").orElseThrow();
    assertThat(degraded.getStatus()).as(degraded.getReason() + ": " + degraded.getMessage()).isEqualTo("True");
    assertThat(degraded.getMessage()).contains("'iad' is unreachable").doesNotContain("every site answers");
  }

  @FlavorTest
  void theWorkerKilledDuringTheEmergencyFailoverStillCompletesIt(Flavor flavor) throws Exception {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    try (WritableSampler writable = WritableSampler.started(stack, new Timeline(System.out));
        WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      // The promotion first applies all pdx received, and since the relay drain lifts a replication
      // delay it applies it at once: a backlog pdx received but has not applied (held by a 6 s
      // delay) holding one bulk transaction of 800,000 rows makes it last seconds instead of
      // milliseconds, so the kill lands inside it (400,000 rows were once applied by MySQL within
      // the second the test waits after seeing Promoting).
      pdx.delayReplication(6);
      iad.execute("CREATE TABLE appdb.bulk (id INT PRIMARY KEY, pad CHAR(60) NOT NULL)",
          "INSERT INTO appdb.bulk SELECT a.n + 10 * b.n + 100 * c.n + 1000 * d.n + 10000 * e.n + 100000 * f.n, "
              + "REPEAT('x', 60) FROM " + digits("a") + ", " + digits("b") + ", " + digits("c") + ", " + digits("d")
              + ", " + digits("e") + ", (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 "
              + "UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) f");
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 100, Duration.ofSeconds(30));
      sleep(1_000);
      int ackedAtKill = load.acknowledgedCount();
      iad.kill9();
      Await.until(stack, () -> "Promoting".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
          "the emergency failover promoting");
      // Kill the worker once the workflow is inside the promote activity, not at the instant the
      // phase is written. A workflow task handed to a poll that dies at that very moment is only
      // re-dispatched after the workflow task timeout (10 s), and Temporal's Java test server
      // offers nothing to shorten it: waiting 1 s after the phase is seen keeps the test's
      // duration predictable, as in PlannedFailoverIT.
      sleep(1_000);
      assertThat(stack.api().emergencyPhase()).as("still promoting when the worker dies").isEqualTo("Promoting");
      stack.controlPlane().killWorker();
      sleep(1_000);
      stack.controlPlane().startWorker();
      Await.until(stack,
          () -> "Succeeded".equals(stack.api().emergencyPhase()) || "Failed".equals(stack.api().emergencyPhase()),
          Duration.ofSeconds(90), "the emergency failover to end");
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));

      assertThat(stack.api().emergencyPhase())
          .as(String.valueOf(stack.api().resource().getStatus().emergencyFailover()))
          .isEqualTo("Succeeded");
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
      assertThat(stack.api().routedSite()).contains("pdx");
      assertThat(writable.most()).as("writable servers at any 50ms sample").isLessThanOrEqualTo(1);
    }
    assertThat(stack.api().eventReasons().stream().filter("FailoverStarted"::equals)).hasSize(1);
  }

  @FlavorTest
  void theWatcherKilledRightAfterStartingTheEmergencyFailoverDoesNotStartASecondOne(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
      stack.server("pdx").awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      int ackedAtKill = load.acknowledgedCount();
      iad.kill9();
      Await.until(stack, () -> stack.api().eventReasons().contains("EmergencyFailoverStarted"), Duration.ofSeconds(60),
          "an EmergencyFailoverStarted Event");
      stack.controlPlane().killWatcher();
      stack.controlPlane().startWatcher();
      Await.until(stack,
          () -> "Succeeded".equals(stack.api().emergencyPhase()) || "Failed".equals(stack.api().emergencyPhase()),
          Duration.ofSeconds(90), "the emergency failover to end");
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));
      // The restarted watcher has had several polls to see the dead iad and act on it again.
      sleep(3_000);

      assertThat(stack.api().emergencyPhase()).isEqualTo("Succeeded");
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
      assertThat(stack.api().routedSite()).contains("pdx");
    }
    assertThat(stack.api().eventReasons().stream().filter("EmergencyFailoverStarted"::equals)).hasSize(1);
    assertThat(stack.api().eventReasons().stream().filter("FailoverStarted"::equals)).hasSize(1);
  }

  private SiteStatus siteStatus(String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.sites() == null ? null
        : s.sites().stream().filter(x -> site.equals(x.name())).findFirst().orElse(null);
  }

  private static void report(String what, WriteLoad load, long killedAt, String active) {
    long firstAfter = load.acks().stream().filter(a -> a.nanos() > killedAt).mapToLong(WriteLoad.Ack::nanos)
        .min().orElseThrow();
    System.out.printf("%s: kill -9 to first acknowledged write on %s: %d ms%n", what, active,
        Duration.ofNanos(firstAfter - killedAt).toMillis());
  }

  private String awaitActiveSiteOtherThan(String old, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
      if (status != null && status.activeSite() != null && !status.activeSite().equals(old)) {
        return status.activeSite();
      }
      sleep(50);
    }
    throw new AssertionError("status.activeSite still '" + old + "' after " + timeout + ": "
        + stack.api().resource().getStatus());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The digits 0 to 9 as a derived table {@code alias(n)}, for a bulk insert both flavors run. */
  private static String digits(String alias) {
    return "(SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL "
        + "SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) " + alias;
  }
}
