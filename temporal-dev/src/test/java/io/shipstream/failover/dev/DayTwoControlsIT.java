package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The handles a DBA operates a group with, on real servers and the whole stack (watcher, worker,
 * sidecars). MariaDB only (CI stays under 20 minutes): what is tested is what the watcher does
 * with the handle, which no statement of a flavor decides; the statements are MysqlActivitiesIT's.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
class DayTwoControlsIT extends StackPerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * {@code bloodraven.shipstream.io/paused=true}: the primary killed while paused is reported
   * (ActionHeld, Ready=False) but not failed over, and a planned failover is refused; once the
   * annotation is removed the failover happens, and every acknowledged write is on the new primary.
   */
  @Test
  void aPausedGroupIsObservedButNotFailedOverUntilItResumes() {
    Flavor flavor = Flavor.MARIADB;
    start(flavor, FailoverStack.Options.emergency());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    Set<Long> acknowledged = new HashSet<>();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, WAIT);
      stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
      Await.until(stack, () -> "True".equals(status(condition("Paused"))), WAIT, "Paused=True");
      assertThat(condition("Paused").getReason()).isEqualTo("PausedByAnnotation");
      assertThat(stack.api().eventReasons()).contains("AutomationPaused");

      // A planned failover is refused while paused, and nothing is fenced.
      String before = Instant.now().toString();
      stack.api().annotate("pdx");
      PlannedFailoverStatus refused = stack.waits().plannedEnd(before, WAIT);
      assertThat(refused.phase()).isEqualTo("Failed");
      assertThat(refused.reason()).isEqualTo("Paused");
      assertThat(iad.isReadOnly()).as("nothing fenced").isFalse();
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 20, WAIT);

      load.stop();
      load.acks().forEach(a -> acknowledged.add(a.id()));
    }
    pdx.awaitCaughtUpWith(iad, WAIT);
    stack.server("dr").awaitCaughtUpWith(iad, WAIT);

    long killedAt = System.nanoTime();
    iad.kill9();
    Await.until(stack, () -> stack.api().eventReasons().contains("ActionHeld"), WAIT, "an ActionHeld Event");
    System.out.printf("%s: kill -9 of a paused group's primary to ActionHeld: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
    // A few more polls: still held, reported once.
    Playground.sleep(2_000);
    assertThat(stack.api().eventMessages("ActionHeld")).singleElement().asString()
        .startsWith("paused: would start an emergency failover from 'iad' to 'pdx'");
    assertThat(stack.api().eventReasons()).doesNotContain("EmergencyFailoverStarted", "FailoverStarted");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
    assertThat(pdx.isReadOnly()).as("nothing promoted").isTrue();
    assertThat(status(condition("Ready"))).isEqualTo("False");

    long resumedAt = System.nanoTime();
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, null);
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed once resumed");
    System.out.printf("%s: resume to Succeeded: %d ms%n", flavor, Duration.ofNanos(System.nanoTime() - resumedAt)
        .toMillis());
    Await.until(stack, () -> "False".equals(status(condition("Paused"))), WAIT, "Paused=False");

    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(stack.api().eventReasons()).contains("AutomationResumed");
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(DatabaseCluster.writtenIds(pdx));
    assertThat(missing).as("acknowledged writes missing on the new primary").isEmpty();
  }

  /**
   * {@code spec.plannedFailover.onActiveNodeDrain: switchover}: cordoning the node of iad's pod (what
   * {@code kubectl drain} does first) starts a planned failover to pdx by itself, which succeeds
   * with every acknowledged write on pdx.
   */
  @Test
  void cordoningThePrimarysNodeSwitchesOverToPdx() {
    Flavor flavor = Flavor.MARIADB;
    start(flavor, FailoverStack.Options.emergency());
    stack.api().editSpec(s -> GroupSpecs.withPlannedFailover(s,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, null, "switchover")));
    DatabaseServer pdx = stack.server("pdx");
    String before = Instant.now().toString();
    PlannedFailoverStatus done;
    List<Long> acknowledged;
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, WAIT);
      long cordonedAt = System.nanoTime();
      stack.api().cordon("iad", true);
      done = stack.waits().plannedEnd(before, WAIT);
      System.out.printf("%s: cordon of the primary's node to the switchover's end: %d ms%n", flavor,
          Duration.ofNanos(System.nanoTime() - cordonedAt).toMillis());
      // Writes go on, on pdx.
      load.awaitAcknowledged(load.acknowledgedCount() + 20, WAIT);
      load.stop();
      acknowledged = load.acknowledged();
    }

    assertThat(done.phase()).as(done.message()).isEqualTo("Succeeded");
    assertThat(done.target()).isEqualTo("pdx");
    assertThat(done.transactionsLost()).isZero();
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(stack.api().eventMessages("DrainSwitchoverRequested")).singleElement().asString()
        .startsWith("node " + GroupApi.nodeOf("iad") + " of the active site iad is cordoned: switching over to pdx");
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(DatabaseCluster.writtenIds(pdx));
    assertThat(missing).as("acknowledged writes missing on the new primary").isEmpty();
  }

  /**
   * {@code planned-failover=<site>:at=<time>}: a request scheduled an hour ahead waits as
   * Scheduled with the time in the status and, withdrawn ({@code kubectl failover cancel}), ends
   * Cancelled having fenced nothing; one scheduled a few seconds ahead (the stack's Temporal runs in
   * real time) switches over at its time with every acknowledged write on pdx; and one waiting
   * when the new primary is killed is pre-empted by the emergency failover.
   */
  @Test
  void aScheduledSwitchoverWaitsForItsTimeCanBeCancelledAndNeverKeepsAnEmergencyOut() {
    Flavor flavor = Flavor.MARIADB;
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    List<Long> acknowledged;
    PlannedFailoverStatus done;
    Instant soon;
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, WAIT);

      Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      String before = Instant.now().toString();
      stack.api().annotate("pdx:at=" + later);
      PlannedFailoverStatus scheduled = stack.waits().planned(p -> "Scheduled".equals(p.phase())
          && p.startTime() != null && p.startTime().compareTo(before) >= 0, WAIT);
      assertThat(scheduled.scheduledAt()).isEqualTo(later.toString());
      stack.api().removeAnnotation();
      PlannedFailoverStatus cancelled = stack.waits().plannedEnd(before, WAIT);
      assertThat(cancelled.phase()).isEqualTo("Failed");
      assertThat(cancelled.reason()).isEqualTo("Cancelled");
      assertThat(cancelled.message()).isEqualTo("cancelled while scheduled: annotation removed");
      assertThat(iad.isReadOnly()).as("nothing fenced").isFalse();
      assertThat(stack.api().eventReasons()).contains("PlannedFailoverScheduled")
          .doesNotContain("PlannedFailoverDraining");
      load.awaitAcknowledged(load.acknowledgedCount() + 20, WAIT);

      soon = Instant.now().plus(Duration.ofSeconds(4)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
      String again = Instant.now().toString();
      stack.api().annotate("pdx:at=" + soon);
      assertThat(stack.waits().planned(p -> "Scheduled".equals(p.phase()) && p.startTime().compareTo(again) >= 0, WAIT)
          .scheduledAt()).isEqualTo(soon.toString());
      done = stack.waits().plannedEnd(again, WAIT);
      System.out.printf("%s: scheduled switchover: due %s, promoted %s, Succeeded %s%n", flavor, soon,
          stack.api().resource().getStatus().lastFailover(), done.completionTime());
      load.awaitAcknowledged(load.acknowledgedCount() + 20, WAIT);
      load.stop();
      acknowledged = load.acknowledged();
    }
    assertThat(done.phase()).as(done.message()).isEqualTo("Succeeded");
    assertThat(done.transactionsLost()).isZero();
    assertThat(Instant.parse(stack.api().resource().getStatus().lastFailover())).as("not before its time")
        .isAfterOrEqualTo(soon);
    assertThat(pdx.isReadOnly()).isFalse();
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(DatabaseCluster.writtenIds(pdx));
    assertThat(missing).as("acknowledged writes missing on the new primary").isEmpty();

    // A request waiting for its time when the primary dies: the emergency failover pre-empts it.
    String waiting = Instant.now().toString();
    stack.api().annotate("iad:at=" + Instant.now().plus(Duration.ofHours(1)));
    stack.waits().planned(p -> "Scheduled".equals(p.phase()) && p.startTime().compareTo(waiting) >= 0, WAIT);
    pdx.kill9();
    PlannedFailoverStatus preempted = stack.waits().plannedEnd(waiting, WAIT);
    assertThat(preempted.reason()).isEqualTo("Cancelled");
    assertThat(preempted.message()).contains("pre-empted by an emergency failover: the active site 'pdx' failed");
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
  }

  /**
   * {@code bloodraven.shipstream.io/fenced-sites}: an unknown site is refused with nothing changed;
   * fencing dr holds it read-only (made writable by hand, it is fenced back), takes it out of the
   * replicas Service and lists it in the status; when iad is then killed, pdx is promoted and not
   * dr (a primary-candidate declared before pdx, which would win the tie unfenced); unfencing dr
   * brings it back. Fencing the active site stops the writes without a failover, and unfencing it
   * makes it writable again.
   */
  @Test
  void aFencedSiteIsHeldReadOnlyOutOfTheReplicasAndNeverPromoted() {
    Flavor flavor = Flavor.MARIADB;
    start(flavor, new FailoverStack.Options(List.of("iad", "dr", "pdx"), List.of(), "0s", null, "500ms", 3, true));
    stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer dr = stack.server("dr");
    DatabaseServer pdx = stack.server("pdx");
    GroupApi api = stack.api();
    Await.until(stack, () -> "replica".equals(api.roleOf("dr")), WAIT, "dr labelled replica");

    // Bad input: refused, nothing changed.
    api.setAnnotation(FencedSites.ANNOTATION, "dr,ord");
    Await.until(stack, () -> api.eventReasons().contains("FenceRejected"), WAIT, "a FenceRejected Event");
    assertThat(api.eventMessages("FenceRejected")).singleElement().asString()
        .contains("'ord' is not a site of the group").contains("nothing was changed");
    assertThat(fencedSites()).isEmpty();
    assertThat(api.roleOf("dr")).isEqualTo("replica");

    long fencedAt = System.nanoTime();
    api.setAnnotation(FencedSites.ANNOTATION, "dr");
    Await.until(stack, () -> fencedSites().equals(List.of("dr")), WAIT, "status.fencedSites [dr]");
    long listedMs = Duration.ofNanos(System.nanoTime() - fencedAt).toMillis();
    Await.until(stack, () -> "fenced".equals(api.roleOf("dr")), WAIT, "dr labelled fenced");
    long labelledMs = Duration.ofNanos(System.nanoTime() - fencedAt).toMillis();
    Await.until(stack, () -> "True".equals(status(condition("Fenced"))), WAIT, "Fenced=True");
    assertThat(condition("Fenced").getReason()).isEqualTo("FencedByAnnotation");
    assertThat(api.eventMessages("SiteFenced")).singleElement().asString().startsWith("site dr is fenced");
    System.out.printf("%s: fence annotation to status.fencedSites: %d ms, to the fenced role label: %d ms%n", flavor,
        listedMs, labelledMs);

    // Made writable by hand, it is fenced back.
    long writableAt = System.nanoTime();
    dr.setReadOnly(false);
    Await.until(stack, dr::isReadOnly, WAIT, "dr read-only again");
    System.out.printf("%s: a fenced replica made writable by hand to read-only again: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - writableAt).toMillis());

    // The primary dies: pdx is promoted, not the fenced dr.
    pdx.awaitCaughtUpWith(iad, WAIT);
    dr.awaitCaughtUpWith(iad, WAIT);
    iad.kill9();
    Await.until(stack, () -> "Succeeded".equals(api.emergencyPhase()), Duration.ofSeconds(60),
        "the emergency failover to succeed");
    assertThat(api.resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(dr.isReadOnly()).isTrue();
    assertThat(api.roleOf("dr")).isEqualTo("fenced");

    // Unfenced: a replica again.
    long unfencedAt = System.nanoTime();
    api.setAnnotation(FencedSites.ANNOTATION, null);
    Await.until(stack, () -> fencedSites().isEmpty() && "False".equals(status(condition("Fenced"))), WAIT,
        "no fenced site");
    Await.until(stack, () -> "replica".equals(api.roleOf("dr")), WAIT, "dr labelled replica again");
    System.out.printf("%s: unfence of a replica to its replica label: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - unfencedAt).toMillis());
    assertThat(api.eventMessages("SiteUnfenced")).singleElement().asString().startsWith("site dr is unfenced");
    assertThat(dr.isReadOnly()).as("it stays a read-only replica").isTrue();

    // The active site fenced: its writes stop, and nothing fails over.
    long activeFencedAt = System.nanoTime();
    api.setAnnotation(FencedSites.ANNOTATION, "pdx");
    Await.until(stack, pdx::isReadOnly, WAIT, "pdx read-only");
    System.out.printf("%s: fence of the active site to read-only: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - activeFencedAt).toMillis());
    Await.until(stack, () -> "ActiveSiteFenced".equals(reason(condition("Fenced"))), WAIT, "Fenced=ActiveSiteFenced");
    Playground.sleep(2_000);
    assertThat(api.eventReasons().stream().filter("EmergencyFailoverStarted"::equals)).as("no second failover")
        .hasSize(1);
    assertThat(api.resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isTrue();
    assertThat(api.roleOf("pdx")).as("it keeps the primary Service: nothing else takes writes").isEqualTo("primary");

    long noPrimaryBefore = api.eventReasons().stream().filter("NoPrimaryDetected"::equals).count();
    long activeUnfencedAt = System.nanoTime();
    api.setAnnotation(FencedSites.ANNOTATION, "");
    Await.until(stack, () -> !pdx.isReadOnly(), WAIT, "pdx writable again");
    System.out.printf("%s: unfence of the active site to writable: %d ms%n", flavor,
        Duration.ofNanos(System.nanoTime() - activeUnfencedAt).toMillis());
    Playground.sleep(2_000);
    assertThat(pdx.isReadOnly()).as("neither its sidecar nor the watcher fences it again").isFalse();
    assertThat(fencedSites()).isEmpty();
    assertThat(api.eventReasons().stream().filter("NoPrimaryDetected"::equals).count())
        .as("an unfenced active site turning writable is no missing primary: " + api.eventMessages("NoPrimaryDetected"))
        .isEqualTo(noPrimaryBefore);
    Await.until(stack, () -> "True".equals(status(condition("Ready"))), WAIT, "Ready once pdx takes writes again");
  }

  private List<String> fencedSites() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.fencedSites() == null ? List.of() : s.fencedSites();
  }

  private static String reason(Condition c) {
    return c == null ? null : c.getReason();
  }

  private Condition condition(String type) {
    return stack.api().condition(type).orElse(null);
  }

  private static String status(Condition c) {
    return c == null ? null : c.getStatus();
  }
}
