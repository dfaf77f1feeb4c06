package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import org.junit.jupiter.api.Test;

/**
 * A promotion that fails: retried through a short refusal, rolled back to a writable source once
 * the target is fenced again, and stopped for manual recovery only when the target cannot be
 * proven read-only. The same {@link PlannedRig} as {@link PlannedFailoverWorkflowTest}.
 */
class PlannedFailoverPromotionTest extends PlannedRigTest {

  PlannedFailoverStatus request(String annotation) {
    return rig.request(annotation);
  }

  @Test
  void aTargetRefusingConnectionsBrieflyIsStillPromoted() {
    mysql.server("pdx").promoteRefusals.set(3);
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("promote")).as("three refused attempts, then the one that got through").hasSize(4);
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(mysql.server("iad").readOnly).isTrue();
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.roles).containsEntry("pdx", "primary");
  }

  @Test
  void aFailedPromotionIsRolledBackOnceTheTargetIsFencedAgain() {
    mysql.server("pdx").promoteFails = true;
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("ExecuteFailed");
    assertThat(result.message()).contains("promotion of pdx failed").contains("pdx fenced again")
        .contains("iad is named active again and writable again").doesNotContain("manual recovery");
    assertThat(mysql.callsTo("promote")).as("PromoteFailed is not retried").hasSize(1);
    assertThat(mysql.calls).containsSubsequence("promote pdx", "fence pdx", "unfence iad");
    assertThat(mysql.server("pdx").readOnly).isTrue();
    assertThat(mysql.server("pdx").replicatesFrom).as("pointed back at the source").isEqualTo("iad");
    assertThat(mysql.server("iad").readOnly).as("the source takes writes again").isFalse();
    assertThat(k8s.status.activeSite()).as("the source named active again").isEqualTo("iad");
    assertThat(k8s.roles).containsEntry("iad", "primary").doesNotContainEntry("pdx", "primary");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("PlannedFailoverFailed");
      assertThat(e.message()).contains("writable again");
    });
    assertThat(k8s.annotation).as("annotation cleared").isNull();
  }

  /**
   * Issue 31 item 2: a promotion rolled back changed nothing to flap from, so it starts no
   * cooldown. {@code lastFailover} still moves (it never goes back, which the rollback's own
   * record relies on); the next request, inside the spec's 5 minute cooldown, is not refused
   * CooldownActive and succeeds, and only that promotion starts the cooldown.
   */
  @Test
  void aRolledBackPromotionStartsNoCooldown() {
    mysql.server("pdx").promoteFails = true;
    PlannedFailoverStatus rolledBack = request("pdx");
    assertThat(rolledBack.phase()).as(rolledBack.message()).isEqualTo("Failed");
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.status.lastFailover()).as("the record moved, the rollback's with the same time").isNotNull();
    assertThat(k8s.status.lastPromotion()).as("no promotion took effect").isNull();
    mysql.server("pdx").promoteFails = false;
    mysql.server("pdx").readOnly = true;

    PlannedFailoverStatus next = request("pdx");

    assertThat(next.reason()).as(next.message()).isNotEqualTo("CooldownActive");
    assertThat(next.phase()).as(next.message()).isEqualTo("Succeeded");
    assertThat(k8s.status.lastPromotion()).as("the promotion that took effect starts the cooldown")
        .isEqualTo(k8s.status.lastFailover());
  }

  @Test
  void aTargetThatCannotBeFencedEitherStopsForManualRecovery() {
    mysql.server("pdx").promoteFails = true;
    mysql.server("pdx").fenceFails = true;
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("ExecuteFailed");
    assertThat(result.message()).contains("pdx could not be fenced either").contains("manual recovery required");
    assertThat(mysql.callsTo("unfence")).as("the target may be writable: the source stays fenced").isEmpty();
    assertThat(mysql.server("iad").readOnly).isTrue();
    assertThat(k8s.status.activeSite()).as("named active before promotion").isEqualTo("pdx");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.message()).contains("cannot be proven read-only").contains("manual recovery required");
    });
  }
}
