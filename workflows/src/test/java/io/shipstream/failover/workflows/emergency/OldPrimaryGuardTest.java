package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.SidecarActivities.Renewal;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The candidate is made writable only once the old primary is known to take no writes: fenced by
 * the workflow, confirmed by its sidecar after the naming, or its lease run out. Without a sidecar
 * nothing could fence it, and the failover says so instead of waiting.
 */
class OldPrimaryGuardTest extends EmergencyRigTest {
  /** A liveness probe every second, two failures, 1 s timeout and 1 s of termination grace. */
  private static final SidecarLiveness.Probe PROBE = SidecarLiveness.Probe.ofPodSpec(1, 1, 2, 1L, null);
  final AtomicReference<Instant> promotedAt = new AtomicReference<>();

  @BeforeEach
  void setUp() {
    k8s.spec = EmergencyRig.specWithSidecars();
    mysql.beforePromote = () -> promotedAt.set(Instant.now());
  }

  @Test
  void anOldPrimaryTheWorkflowFencedNeedsNoWait() {
    rig.iadBackForTheFence();

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(sidecar.calls).as("nothing to ask").isEmpty();
    assertThat(event("OldPrimaryFenceConfirmed").type()).isEqualTo("Normal");
    assertThat(event("OldPrimaryFenceConfirmed").message()).contains("iad is read-only (fenced by the failover)");
    assertThat(k8s.eventReasons()).doesNotContain("OldPrimaryLeaseWait", "OldPrimaryLeaseExpired");
  }

  @Test
  void theOldPrimarysSidecarConfirmingItIsFencedLetsThePromotionGoOnAtOnce() {
    EmergencyFailoverStatus result = runWithSidecarConfirming(Duration.ofMillis(300), "READ_ONLY",
        "it answered READ_ONLY while knowing active site pdx");

    assertThat(result.oldPrimaryFenced()).isFalse();
    assertThat(sidecar.calls).containsExactly("http://iad.sidecar:8080 iad pdx");
    assertThat(Duration.between(namedAt(), promotedAt.get())).as("no lease wait").isLessThan(Duration.ofMillis(3000));
    assertThat(k8s.eventReasons()).doesNotContain("OldPrimaryLeaseExpired");
  }

  @Test
  void aDeadOldPrimaryIsProvedByItsSidecarAndTheEventSaysItWasDeathNotAFence() {
    runWithSidecarConfirming(Duration.ofMillis(200), "STOPPED", "its server process is dead (STOPPED");
  }

  @Test
  void anUnreachableSidecarMeansWaitingOutTheLeaseBeforeTheCandidateIsWritable() {
    sidecar.confirmAfter = null;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    // lease 2 s + tick 500 ms + margin 1 s from the naming, which is after lastFailover.
    assertThat(Duration.between(namedAt(), promotedAt.get())).isGreaterThanOrEqualTo(Duration.ofMillis(3500));
    assertThat(mysql.server("pdx").readOnly).isFalse();
    FakeKubernetes.Event wait = event("OldPrimaryLeaseWait");
    assertThat(wait.type()).isEqualTo("Warning");
    assertThat(wait.message()).startsWith("waiting ").contains("for iad's lease to expire");
    FakeKubernetes.Event expired = event("OldPrimaryLeaseExpired");
    assertThat(expired.type()).isEqualTo("Warning");
    assertThat(expired.message()).contains("iad's lease expired").contains("its sidecar could not confirm");
    assertThat(result.message()).contains("iad's lease expired");
  }

  @Test
  void aLongerLeaseTheOldPrimarysSidecarReportsIsWaitedOut() {
    // The spec says 2 s; the sidecar still runs with 4 s (it has not heard the watcher since the
    // spec was shortened).
    sidecar.confirmAfter = null;
    sidecar.reportedLease = Duration.ofSeconds(4);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    // Its lease 4 s + its tick 500 ms + margin 1 s from the naming.
    assertThat(Duration.between(namedAt(), promotedAt.get())).isGreaterThanOrEqualTo(Duration.ofMillis(5500));
    assertThat(event("OldPrimaryLeaseExpired").message()).contains("its sidecar runs with a lease of 4 s");
  }

  @Test
  void aHungSidecarsRestartIsWaitedOutAfterTheLeaseAndShownInTheStatus() {
    // The lease alone would be 3.5 s. Cut off, the sidecar may keep its server writable until its
    // lease fences it (2 s + the 500 ms tick after the naming) and hang in its last tick before
    // that; it is then restarted by this probe only after its /health fails, 2 x 1 s of probes, a
    // 1 s timeout and 1 s of termination grace, and fences at boot within the boot fence's bound;
    // + 1 s of margin. 0.1.0 waited only the longer of the two (the restart bound + 1 s).
    sidecar.confirmAfter = null;
    k8s.sidecarProbe = GuardRestart.Reading.probed("mysql-iad-0", PROBE);
    Duration bound = Duration.ofMillis(2500).plus(SidecarLiveness.restartAndFenceBound(PROBE, Duration.ofMillis(500)))
        .plusSeconds(1);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(Duration.between(namedAt(), promotedAt.get())).isGreaterThanOrEqualTo(bound);
    assertThat(result.oldPrimaryWait().basis()).isEqualTo("PROBED");
    assertThat(result.oldPrimaryWait().seconds()).isEqualTo(bound.toMillis() / 1000.0);
    assertThat(result.oldPrimaryWait().detail()).contains("mysql-iad-0's liveness probe")
        .endsWith("; the lease counted from the naming (its last renewal: this fake reads no renewer)");
    assertThat(event("OldPrimaryLeaseWait").message()).contains("a hung sidecar to be restarted")
        .contains("mysql-iad-0's liveness probe: /health fails after 10.5 s, then 2 x 1 s");
    assertThat(event("OldPrimaryLeaseExpired").message()).contains("at boot if it hung");
    // Asked again once the first ask gave up at the lease's deadline: a restarted sidecar can confirm.
    assertThat(sidecar.calls).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void aLeaseLastRenewedBeforeTheNamingIsWaitedOutFromThatRenewal() {
    sidecar.confirmAfter = null;
    k8s.sidecarProbe = GuardRestart.Reading.probed("mysql-iad-0", PROBE);
    // Last renewed 6 s before the read, which the fake answers at once after the naming: its
    // sidecar counted that contact at most 2 s (a request's timeout) later, so the lease counts
    // from about 4 s before the naming.
    sidecar.renewal = new Renewal(6000L, "the sidecar at http://pdx.sidecar:8080", "an answer to iad", 3);
    Duration fromTheNaming = Duration.ofMillis(2500)
        .plus(SidecarLiveness.restartAndFenceBound(PROBE, Duration.ofMillis(500))).plusSeconds(1);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(sidecar.renewalAsks).singleElement().satisfies(ask -> {
      assertThat(ask.oldSite()).isEqualTo("iad");
      assertThat(ask.target()).isEqualTo("pdx");
      assertThat(ask.namespace()).isEqualTo(EmergencyRig.GROUP.namespace());
      assertThat(ask.group()).isEqualTo(EmergencyRig.GROUP.name());
      assertThat(ask.peerUrls()).as("every other site's sidecar").containsExactly("http://pdx.sidecar:8080",
          "http://dr.sidecar:8080");
      // Two peer-check intervals and 2 s: the renewers take the new view up within a tick.
      assertThat(Duration.between(ask.namedAt(), ask.deadline())).isEqualTo(Duration.ofSeconds(3));
    });
    Duration waited = Duration.between(namedAt(), promotedAt.get());
    assertThat(waited).as("about 4 s shorter than counted from the naming")
        .isLessThan(fromTheNaming.minusSeconds(3)).isGreaterThan(fromTheNaming.minusSeconds(6));
    assertThat(result.oldPrimaryWait().seconds()).isLessThan(fromTheNaming.minusSeconds(3).toMillis() / 1000.0);
    assertThat(result.oldPrimaryWait().detail()).contains("; the lease counted from its last renewal, ")
        .contains("ms before the naming (an answer to iad)");
    assertThat(event("OldPrimaryLeaseWait").message()).contains("the lease counted from its last renewal");
    assertThat(event("OldPrimaryLeaseExpired").message()).contains("the lease counted from its last renewal");
  }

  @Test
  void aLastRenewalAfterTheNamingDoesNotLengthenTheWait() {
    sidecar.confirmAfter = null;
    sidecar.renewal = new Renewal(0L, "watcher watcher-0", "an answer to iad", 2);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    // A contact 0 ms ago counts up to 2 s later: after the naming, so the naming stands.
    assertThat(result.oldPrimaryWait().seconds()).isEqualTo(3.5);
    assertThat(result.oldPrimaryWait().detail()).endsWith("; the lease counted from the naming (its last renewal: "
        + "an answer to iad)");
  }

  @Test
  void aReadOfTheLastRenewalThatFailsLeavesTheWaitCountedFromTheNaming() {
    sidecar.confirmAfter = null;
    sidecar.renewal = null;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(sidecar.renewalAsks).as("asked, and retried").hasSizeGreaterThanOrEqualTo(2);
    assertThat(Duration.between(namedAt(), promotedAt.get())).isGreaterThanOrEqualTo(Duration.ofMillis(3500));
    assertThat(result.oldPrimaryWait().seconds()).isEqualTo(3.5);
    assertThat(result.oldPrimaryWait().detail()).contains("the lease counted from the naming (its last renewal: "
        + "the read failed: the renewers' logs cannot be read)");
  }

  @Test
  void aSidecarRestartedByItsProbeThatConfirmsItsBootFenceEndsTheWaitBeforeTheBound() {
    sidecar.confirmAfter = null;
    k8s.sidecarProbe = GuardRestart.Reading.probed("mysql-iad-0", PROBE);
    // The first ask gives up at the lease's deadline; the second is answered: fenced at boot.
    sidecar.confirmOnCall = 2;
    sidecar.mysqlState = "READ_ONLY";

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(Duration.between(namedAt(), promotedAt.get())).as("before the restart bound")
        .isLessThan(SidecarLiveness.restartAndFenceBound(PROBE, Duration.ofMillis(500)));
    assertThat(event("OldPrimaryFenceConfirmed").message()).contains("iad's sidecar confirms iad takes no writes");
    assertThat(k8s.eventReasons()).doesNotContain("OldPrimaryLeaseExpired");
  }

  @Test
  void aSidecarThatNoProbeRestartsIsWaitedOutByTheLeaseAndTheFailoverSaysTheFenceIsUnproven() {
    sidecar.confirmAfter = null;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.oldPrimaryWait().basis()).isEqualTo("NO_PROBE");
    assertThat(result.oldPrimaryWait().seconds()).isEqualTo(3.5);
    assertThat(event("OldPrimaryLeaseExpired").message()).contains("nothing restarts its sidecar should it hang")
        .contains("without proof that iad is fenced");
  }

  @Test
  void withoutASidecarNothingCanFenceAnIsolatedOldPrimarySoTheFailoverSaysSoAndGoesOn() {
    k8s.spec = EmergencyRig.spec();

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(sidecar.calls).isEmpty();
    FakeKubernetes.Event warning = event("OldPrimaryNotGuarded");
    assertThat(warning.type()).isEqualTo("Warning");
    assertThat(warning.message()).contains("iad has no sidecar").contains("without waiting");
    assertThat(k8s.eventReasons()).doesNotContain("OldPrimaryLeaseWait");
  }

  /**
   * Runs the failover with iad's sidecar confirming {@code state} after {@code confirmAfter}, and
   * checks what every such run shows: success, the promotion not before the confirmation, and an
   * OldPrimaryFenceConfirmed event that names the sidecar and says {@code why}.
   */
  private EmergencyFailoverStatus runWithSidecarConfirming(Duration confirmAfter, String state, String why) {
    sidecar.confirmAfter = confirmAfter;
    sidecar.mysqlState = state;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(promotedAt.get()).as("promoted after the sidecar confirmed").isAfterOrEqualTo(sidecar.confirmedAt);
    assertThat(event("OldPrimaryFenceConfirmed").message()).contains("iad's sidecar confirms iad takes no writes")
        .contains(why);
    return result;
  }

  private Instant namedAt() {
    return Instant.parse(k8s.status.lastFailover());
  }

  private FakeKubernetes.Event event(String reason) {
    return k8s.events.stream().filter(e -> e.reason().equals(reason)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + reason + " Event in " + k8s.eventReasons()));
  }
}
