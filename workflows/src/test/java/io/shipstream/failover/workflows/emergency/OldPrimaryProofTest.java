package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.SidecarActivities.Confirmation;
import io.shipstream.failover.workflows.activities.SidecarActivities.Snapshot;
import io.shipstream.failover.workflows.emergency.OldPrimaryProof.Proof;
import io.shipstream.failover.workflows.emergency.OldPrimaryProof.Route;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OldPrimaryProofTest {
  static final Instant NAMED = Instant.parse("2026-05-01T10:00:00Z");
  static final SiteSpec WITH_SIDECAR = EmergencyRig.specWithSidecars().sites().get(0);
  static final SiteSpec WITHOUT = EmergencyRig.spec().sites().get(0);

  @Test
  void theWorkflowsOwnFenceNeedsNoOtherProof() {
    assertThat(OldPrimaryProof.route(true, WITH_SIDECAR)).isEqualTo(Route.FENCED_BY_WORKFLOW);
    assertThat(OldPrimaryProof.route(true, WITHOUT)).isEqualTo(Route.FENCED_BY_WORKFLOW);
  }

  @Test
  void anUnfencedOldPrimaryIsAskedAboutOnlyWhenItHasASidecar() {
    assertThat(OldPrimaryProof.route(false, WITH_SIDECAR)).isEqualTo(Route.ASK_SIDECAR);
    assertThat(OldPrimaryProof.route(null, WITH_SIDECAR)).isEqualTo(Route.ASK_SIDECAR);
    assertThat(OldPrimaryProof.route(false, WITHOUT)).isEqualTo(Route.NO_SIDECAR);
    SiteSpec blank = new SiteSpec("iad", null, null, WITHOUT.mysql(), null, WITHOUT.taintNodeSelector(), null,
        new SiteSpec.Sidecar(" "), null);
    assertThat(OldPrimaryProof.route(false, blank)).isEqualTo(Route.NO_SIDECAR);
  }

  @Test
  void theLeaseDeadlineIsLeasePlusOneTickPlusAMarginFromTheNaming() {
    GroupConfig defaults = GroupConfig.resolve(EmergencyRig.spec());
    assertThat(OldPrimaryProof.leaseDeadline(NAMED, defaults)).isEqualTo(NAMED.plusSeconds(26));
    GroupConfig shortKnobs = GroupConfig.resolve(EmergencyRig.specWithSidecars());
    assertThat(OldPrimaryProof.leaseDeadline(NAMED, shortKnobs)).isEqualTo(NAMED.plusMillis(3500));
    assertThat(OldPrimaryProof.askDeadline(NAMED.plusSeconds(26))).isEqualTo(NAMED.plusMillis(25_500));
  }

  @Test
  void aLongerLeaseTheSidecarReportsExtendsTheDeadlineAndAShorterOneDoesNot() {
    GroupConfig shortKnobs = GroupConfig.resolve(EmergencyRig.specWithSidecars());
    Instant spec = OldPrimaryProof.leaseDeadline(NAMED, shortKnobs);

    Snapshot longer = new Snapshot("iad", "iad", "UNREACHABLE", 3, 20_000L, 5_000L);
    Snapshot shorter = new Snapshot("iad", "iad", "UNREACHABLE", 3, 1_000L, 300L);
    Snapshot silent = new Snapshot("iad", "iad", "UNREACHABLE", 3);

    assertThat(OldPrimaryProof.leaseDeadline(NAMED, shortKnobs, longer)).as("20 s + 5 s + 1 s")
        .isEqualTo(NAMED.plusSeconds(26));
    assertThat(OldPrimaryProof.leaseDeadline(NAMED, shortKnobs, shorter)).as("never below the spec's").isEqualTo(spec);
    assertThat(OldPrimaryProof.leaseDeadline(NAMED, shortKnobs, silent)).as("an older sidecar says nothing")
        .isEqualTo(spec);
    assertThat(OldPrimaryProof.leaseDeadline(NAMED, shortKnobs, null)).isEqualTo(spec);
  }

  @Test
  void onlyAConfirmationOrTheDeadlineSettlesTheWait() {
    Confirmation yes = new Confirmation(true, new Snapshot("iad", "pdx", "READ_ONLY", 4), null, 120);
    Confirmation no = new Confirmation(false, null, "ConnectException", 25_000);
    assertThat(OldPrimaryProof.settle(yes, false)).isEqualTo(Proof.SIDECAR_CONFIRMED);
    assertThat(OldPrimaryProof.settle(yes, true)).isEqualTo(Proof.SIDECAR_CONFIRMED);
    assertThat(OldPrimaryProof.settle(null, false)).isNull();
    assertThat(OldPrimaryProof.settle(no, false)).as("an early give-up still waits for the lease").isNull();
    assertThat(OldPrimaryProof.settle(no, true)).isEqualTo(Proof.LEASE_EXPIRED);
    assertThat(OldPrimaryProof.settle(null, true)).isEqualTo(Proof.LEASE_EXPIRED);
    Confirmation dead = new Confirmation(true, new Snapshot("iad", "pdx", "STOPPED", 4), null, 120);
    assertThat(OldPrimaryProof.settle(dead, false)).isEqualTo(Proof.SIDECAR_SAW_IT_DEAD);
  }

  @Test
  void aSnapshotProvesTheFenceOnlyWithTheNewActiveSiteAndAServerKnownToTakeNoWrites() {
    assertThat(new Snapshot("iad", "pdx", "READ_ONLY", 1).provesFenced("iad", "pdx")).isTrue();
    assertThat(new Snapshot("iad", "pdx", "STARTUP_READ_ONLY", 1).provesFenced("iad", "pdx")).isTrue();
    assertThat(new Snapshot("iad", "pdx", "STOPPED", 1).provesFenced("iad", "pdx"))
        .as("its process is dead").isTrue();
    assertThat(new Snapshot("iad", "pdx", "UNREACHABLE", 1).provesFenced("iad", "pdx"))
        .as("a frozen server does not answer either, and resumes writable").isFalse();
    assertThat(new Snapshot("iad", "pdx", "HUNG", 1).provesFenced("iad", "pdx")).isFalse();
    assertThat(new Snapshot("iad", "pdx", "WRITABLE", 1).provesFenced("iad", "pdx")).isFalse();
    assertThat(new Snapshot("iad", "iad", "READ_ONLY", 1).provesFenced("iad", "pdx"))
        .as("a view from before the naming").isFalse();
    assertThat(new Snapshot("iad", null, "READ_ONLY", 1).provesFenced("iad", "pdx")).isFalse();
    assertThat(new Snapshot("sfo", "pdx", "READ_ONLY", 1).provesFenced("iad", "pdx"))
        .as("another site's sidecar").isFalse();
  }

  @Test
  void theMessagesSayHowLongAndWhy() {
    Confirmation unreachable = new Confirmation(false, null, "no answer within 1000 ms", 25_000);
    GuardRestart.Bound noProbe = GuardRestart.bound(GuardRestart.Reading.noProbe("no probe"), Duration.ofSeconds(20),
        Duration.ofSeconds(5));
    assertThat(OldPrimaryProof.waitMessage("iad", Duration.ofMillis(25_960), NAMED, null, noProbe))
        .isEqualTo("waiting 26 s (until 2026-05-01T10:00:00Z) for iad's lease to expire: its sidecar has not "
            + "confirmed iad fenced; the wait is " + noProbe.basis());
    GuardRestart.Bound probed = GuardRestart.bound(GuardRestart.Reading.probed("mysql-iad-0",
        io.shipstream.failover.model.SidecarLiveness.Probe.CHART), Duration.ofSeconds(20), Duration.ofSeconds(5));
    assertThat(OldPrimaryProof.waitMessage("iad", Duration.ofMillis(25_960), NAMED, null, probed))
        .contains("for iad's lease to expire and a hung sidecar to be restarted and fence it at boot")
        .contains("mysql-iad-0's liveness probe");
    assertThat(OldPrimaryProof.confirmedMessage(Proof.LEASE_EXPIRED, "iad", "pdx", unreachable, probed))
        .contains("its sidecar could not confirm: no answer within 1000 ms").contains("at boot if it hung");
    assertThat(OldPrimaryProof.confirmedMessage(Proof.LEASE_EXPIRED, "iad", "pdx", unreachable, noProbe))
        .contains("without proof that iad is fenced");
    Confirmation refused = new Confirmation(false, null, "the sidecar refused the token (401): the worker's "
        + "AUTH_TOKEN_FILE or AUTH_TOKEN must hold the sidecars' shared token", 25_000);
    assertThat(OldPrimaryProof.whyUnconfirmed(refused, "iad"))
        .isEqualTo("its sidecar could not confirm: the sidecar refused the token (401): the worker's "
            + "AUTH_TOKEN_FILE or AUTH_TOKEN must hold the sidecars' shared token");
    Confirmation writable = new Confirmation(false, new Snapshot("iad", "iad", "WRITABLE", 3), null, 25_000);
    assertThat(OldPrimaryProof.whyUnconfirmed(writable, "iad"))
        .isEqualTo("its sidecar last reported active site iad and MySQL WRITABLE");
    assertThat(OldPrimaryProof.waitMessage("iad", Duration.ofMillis(3450), NAMED, null, noProbe))
        .startsWith("waiting 3.5 s");
  }
}
