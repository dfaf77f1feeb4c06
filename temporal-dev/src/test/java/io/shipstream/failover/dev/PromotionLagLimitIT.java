package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.EmergencyFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code spec.emergencyFailover.maxLagOnPromotion} on real servers, once per flavor: the only
 * primary-candidate left stopped receiving (its IO thread stopped, and dr's too, so nobody holds
 * the primary's last writes), the primary is killed, and the candidate, further behind than the
 * limit, is not promoted: a FailoverBlocked Event with the cause and Ready=False. A human then
 * names it with {@code bloodraven.shipstream.io/promote-anyway}: it is promoted, and the status and
 * the Events say how many transactions that lost, which are exactly the rows only the dead primary
 * held.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
class PromotionLagLimitIT extends StackPerTest {
  private static final long LIMIT = 5;
  private static final int ONLY_ON_IAD = 12;

  // MariaDB only in CI (its run stays under 20 minutes): the rows are flavor-neutral model code, and
  // MySQL's received set (Retrieved_Gtid_Set) in the distance is covered by TopologyMatrixLagLimitTest and
  // read by ServerProbe, which MysqlActivitiesIT and SourceViewIT run on MySQL 9.7.
  @Test
  void aCandidateOverTheLagLimitWaitsForAHumanWhoseOverridePromotesItAndReportsTheLoss() {
    Flavor flavor = Flavor.MARIADB;
    long began = System.nanoTime();
    start(flavor, FailoverStack.Options.emergency());
    stack.api().editSpec(spec -> GroupSpecs.withEmergencyFailover(spec, new EmergencyFailoverSpec(LIMIT)));
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer dr = stack.server("dr");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      load.stop();
    }
    pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
    dr.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
    // Nobody receives what iad commits from now on: one transaction per row.
    pdx.stopReplicaIoThread();
    dr.stopReplicaIoThread();
    for (int i = 1; i <= ONLY_ON_IAD; i++) {
      iad.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (" + (-i) + ", NOW(6))");
    }
    String iadLast = iad.gtidExecuted();
    // The watcher's last view of iad must hold those writes: that is what the lag is counted from.
    Await.until(stack, () -> iadLast.equals(gtidInStatus("iad")), Duration.ofSeconds(30),
        "status.sites to show iad at " + iadLast);
    Set<Long> onIad = new HashSet<>(DatabaseCluster.writtenIds(iad));

    long killedAt = System.nanoTime();
    iad.kill9();
    Await.until(stack, () -> stack.api().eventReasons().contains("FailoverBlocked"), Duration.ofSeconds(30),
        "a FailoverBlocked Event");
    Await.until(stack, () -> ready() != null && "False".equals(ready().getStatus())
        && ready().getMessage().startsWith("CandidateTooFarBehind"), Duration.ofSeconds(30),
        "Ready=False with the cause");
    System.out.printf("%s: kill -9 to FailoverBlocked/CandidateTooFarBehind: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
    // A few more polls: the block stands, nothing is promoted.
    sleepMillis(2_000);

    assertThat(stack.api().eventMessages("FailoverBlocked")).anySatisfy(m -> assertThat(m)
        .startsWith("CandidateTooFarBehind: ")
        .contains("site 'pdx' had not received " + ONLY_ON_IAD + " transaction(s)")
        .contains("more than spec.emergencyFailover.maxLagOnPromotion " + LIMIT));
    assertThat(ready().getReason()).isEqualTo("Blocked");
    assertThat(stack.api().eventReasons()).doesNotContain("EmergencyFailoverStarted");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
    assertThat(pdx.isReadOnly()).isTrue();

    long overriddenAt = System.nanoTime();
    stack.api().setAnnotation(PromoteAnywayAnnotation.ANNOTATION, "pdx");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the forced emergency failover to succeed");
    System.out.printf("%s: promote-anyway to Succeeded: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - overriddenAt).toMillis());

    MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
    EmergencyFailoverStatus emergency = status.emergencyFailover();
    Set<Long> lost = new HashSet<>(onIad);
    lost.removeAll(DatabaseCluster.writtenIds(pdx));
    assertThat(lost).as("the rows only iad held").hasSize(ONLY_ON_IAD);
    assertThat(status.activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(emergency.transactionsLost()).as(String.valueOf(emergency)).isEqualTo((long) lost.size());
    assertThat(emergency.forcedPromotion()).isEqualTo(new EmergencyFailoverStatus.ForcedPromotion(
        PromoteAnywayAnnotation.ANNOTATION + "=pdx", LIMIT, (long) ONLY_ON_IAD, emergency.lostGtid()));
    assertThat(emergency.message()).contains("promoted over maxLagOnPromotion " + LIMIT);
    assertThat(stack.api().eventMessages("PromotedOverLagLimit")).singleElement().asString()
        .contains("it had not received " + ONLY_ON_IAD + " transaction(s) of iad");
    assertThat(stack.api().eventMessages("DataLossDetected")).singleElement().asString()
        .startsWith(ONLY_ON_IAD + " transactions committed on iad are not on pdx");
    Await.until(stack, () -> annotation() == null, Duration.ofSeconds(10), "the request to be removed");
    assertThat(stack.api().eventReasons().stream().filter("EmergencyFailoverStarted"::equals)).hasSize(1);
    System.out.printf("%s: whole test %d ms%n", flavor, Duration.ofNanos(System.nanoTime() - began).toMillis());
  }

  private String gtidInStatus(String site) {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.sites() == null ? null : s.sites().stream().filter(x -> site.equals(x.name()))
        .map(SiteStatus::gtidExecuted).filter(Objects::nonNull).findFirst().orElse(null);
  }

  private Condition ready() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.conditions() == null ? null
        : s.conditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
  }

  private String annotation() {
    var annotations = stack.api().resource().getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(PromoteAnywayAnnotation.ANNOTATION);
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
