package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.PhaseChecks;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scheduled switchover ({@code at=} in the annotation): it waits as Scheduled, with the time in
 * the status, on a durable timer an hour long, which the test server skips ({@code env.sleep});
 * the runbook after the timer runs in real time while the test polls the fakes. It fires at its
 * time and not before, is validated again then, and a cancel or a withdrawn annotation before
 * its time ends it having fenced nothing.
 */
class PlannedFailoverScheduleTest extends PlannedRigTest {
  private static final Duration AHEAD = Duration.ofHours(1);

  @Override
  protected PlannedRig newRig() {
    return new PlannedRig(true);
  }

  private Instant now() {
    return Instant.ofEpochMilli(rig.env.currentTimeMillis());
  }

  /** Starts {@code pdx:at=<an hour from now>} and waits until the status says Scheduled; returns the time. */
  private Instant scheduled(PlannedFailoverWorkflow[] wf) {
    Instant at = now().plus(AHEAD);
    wf[0] = rig.startAsync("pdx:at=" + at);
    WorkflowWaits.awaitPhase("Scheduled", k8s::lastPhase);
    return at;
  }

  @Test
  void firesAtItsTimeAndNotBeforeWithTheTimeInTheStatus() throws Exception {
    PlannedFailoverWorkflow[] wf = new PlannedFailoverWorkflow[1];
    Instant at = scheduled(wf);
    PlannedFailoverStatus waiting = k8s.status.plannedFailover();
    assertThat(waiting.phase()).isEqualTo("Scheduled");
    assertThat(waiting.scheduledAt()).isEqualTo(at.toString());
    assertThat(waiting.target()).isEqualTo("pdx");
    // The Event is written just after the status that says Scheduled.
    WorkflowWaits.await(() -> k8s.eventReasons(), r -> r.contains("PlannedFailoverScheduled"), "the Scheduled Event");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.reason()).isEqualTo("PlannedFailoverScheduled");
      assertThat(e.message()).isEqualTo("switchover to pdx scheduled at " + at);
    });
    assertThat(mysql.calls).as("no server touched while scheduled").isEmpty();

    // A minute short: the test server's clock also runs in real time while the test waits above,
    // which a loaded machine stretched past a second.
    rig.env.sleep(AHEAD.minusMinutes(1));
    assertThat(k8s.lastPhase()).as("a minute before its time").isEqualTo("Scheduled");
    assertThat(mysql.calls).isEmpty();

    rig.env.sleep(Duration.ofSeconds(61));
    WorkflowWaits.awaitPhase("Succeeded", k8s::lastPhase);
    PlannedFailoverStatus result = rig.result(wf[0]);
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.scheduledAt()).isEqualTo(at.toString());
    assertThat(Instant.parse(result.startTime()))
        .as("the switchover starts at its time: its duration is not the wait's")
        .isAfterOrEqualTo(at);
    assertThat(Instant.parse(k8s.status.lastFailover())).as("promoted at its time, not before").isAfterOrEqualTo(at);
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Scheduled", "Validating", "Draining", "WaitingForLag",
        "Promoting", "Resuming", "Succeeded"), "Scheduled");
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.annotation).as("cleared by the run that served it").isNull();
    rig.replayAndMaybeStore("planned-scheduled-succeeded");
  }

  @Test
  void cancelledBeforeItsTimeFencesNothing() {
    PlannedFailoverWorkflow[] wf = new PlannedFailoverWorkflow[1];
    scheduled(wf);
    wf[0].cancel("maintenance postponed");
    PlannedFailoverStatus result = rig.result(wf[0]);
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).isEqualTo("cancelled while scheduled: maintenance postponed");
    assertThat(mysql.calls).as("no server touched").isEmpty();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
  }

  @Test
  void anAnnotationRemovedWhileScheduledEndsCancelledAtItsTime() {
    PlannedFailoverWorkflow[] wf = new PlannedFailoverWorkflow[1];
    scheduled(wf);
    // No cancel signal (a watcher restarted meanwhile would send none): the re-read at the time catches it.
    k8s.annotation = null;
    PlannedFailoverStatus result = rig.result(wf[0]);
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).isEqualTo("annotation removed while scheduled");
    assertThat(mysql.calls).as("no server touched").isEmpty();
  }

  @Test
  void isValidatedAgainWhenItsTimeComes() {
    PlannedFailoverWorkflow[] wf = new PlannedFailoverWorkflow[1];
    scheduled(wf);
    mysql.server("pdx").replicating = false;
    rig.env.sleep(AHEAD.plusSeconds(1));
    WorkflowWaits.awaitPhase("Failed", k8s::lastPhase);
    PlannedFailoverStatus result = rig.result(wf[0]);
    assertThat(result.reason()).isEqualTo("TargetUnhealthy");
    assertThat(result.message()).contains("not replicating");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isFalse();
  }

  @Test
  void aTimeNotAheadOrTooFarAheadIsRefusedAtOnceTouchingNothing() {
    Instant past = now().minusSeconds(10);
    PlannedFailoverStatus result = rig.request("pdx:at=" + past);
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("InvalidSchedule");
    assertThat(result.message()).startsWith("the scheduled time " + past + " is not in the future");
    assertThat(k8s.phases()).doesNotContain("Scheduled");
    assertThat(k8s.eventReasons()).contains("PlannedFailoverRejected").doesNotContain("PlannedFailoverScheduled");

    k8s.statusHistory.clear();
    Instant far = now().plus(Duration.ofDays(91));
    result = rig.request("pdx:at=" + far);
    assertThat(result.reason()).isEqualTo("InvalidSchedule");
    assertThat(result.message()).startsWith("the scheduled time " + far + " is more than 90 days ahead");
    assertThat(k8s.phases()).doesNotContain("Scheduled");
    assertThat(mysql.calls).as("no server touched").isEmpty();
    assertThat(k8s.annotation).as("annotation cleared").isNull();
  }

  @Test
  void anUnknownSiteIsRefusedAtOnceNotWhenTheTimeComes() {
    PlannedFailoverStatus result = rig.request("sfo:at=" + now().plus(AHEAD));
    assertThat(result.reason()).isEqualTo("UnknownSite");
    assertThat(k8s.phases()).doesNotContain("Scheduled");
  }
}
