package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.workflows.activities.SidecarActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities.Confirmation;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.emergency.OldPrimaryProof.Proof;
import io.shipstream.failover.workflows.emergency.OldPrimaryProof.Route;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiConsumer;

/**
 * Holds the candidate's promotion back until the old primary cannot take writes (decided by {@link
 * OldPrimaryProof}). Started right after the candidate is named active, so the sidecar's answer
 * overlaps the relay drain and the catch-up; {@link #await} is called just before the candidate
 * is made writable. Workflow code: time comes from {@link FailoverRun#now}, the wait
 * is a durable timer.
 */
final class OldPrimaryGate {
  private final EmergencyPlan plan;
  private final Route route;
  private final Instant namedAt;
  /** The spec's lease deadline, pushed back when the sidecar reports running with a longer lease. */
  private Instant leaseDeadline;
  private final Promise<Confirmation> answer;
  private final BiConsumer<Events, String> warn;
  private final BiConsumer<Events, String> inform;

  private OldPrimaryGate(EmergencyPlan plan, Route route, Instant namedAt, Instant leaseDeadline,
      Promise<Confirmation> answer, BiConsumer<Events, String> warn, BiConsumer<Events, String> inform) {
    this.plan = plan;
    this.route = route;
    this.namedAt = namedAt;
    this.leaseDeadline = leaseDeadline;
    this.answer = answer;
    this.warn = warn;
    this.inform = inform;
  }

  /** Starts asking the old primary's sidecar, when there is one to ask; {@code namedAt} is now. */
  static OldPrimaryGate start(EmergencyPlan plan, Boolean fencedByWorkflow, Instant namedAt,
      BiConsumer<Events, String> warn, BiConsumer<Events, String> inform) {
    Route route = OldPrimaryProof.route(fencedByWorkflow, plan.failed());
    Instant leaseDeadline = OldPrimaryProof.leaseDeadline(namedAt, plan.config());
    Promise<Confirmation> answer = null;
    if (route == Route.ASK_SIDECAR) {
      Instant askDeadline = OldPrimaryProof.askDeadline(leaseDeadline);
      SidecarActivities sidecar = ActivityStubs.sidecarWait(OldPrimaryProof.remaining(namedAt, askDeadline),
          "ask the sidecar of " + plan.failed().name() + " to confirm it is fenced");
      answer = Async.function(sidecar::confirmFenced, OldPrimaryProof.sidecarUrl(plan.failed()),
          plan.failed().name(), plan.target().name(), askDeadline);
    }
    return new OldPrimaryGate(plan, route, namedAt, leaseDeadline, answer, warn, inform);
  }

  /** Returns once the old primary cannot take writes, or at once when nothing could make sure of it. */
  Proof await() {
    String site = plan.failed().name();
    String target = plan.target().name();
    Proof proof = switch (route) {
      case FENCED_BY_WORKFLOW -> Proof.FENCED_BY_WORKFLOW;
      case NO_SIDECAR -> Proof.NO_SIDECAR;
      case ASK_SIDECAR -> waitForSidecarOrLease(site);
    };
    Confirmation last = peek();
    String message = OldPrimaryProof.confirmedMessage(proof, site, target, last);
    switch (proof) {
      case NO_SIDECAR -> warn.accept(Events.OLD_PRIMARY_NOT_GUARDED, message);
      case LEASE_EXPIRED -> warn.accept(Events.OLD_PRIMARY_LEASE_EXPIRED, message);
      default -> inform.accept(Events.OLD_PRIMARY_FENCE_CONFIRMED, message);
    }
    return proof;
  }

  private Proof waitForSidecarOrLease(String site) {
    Proof proof = settle();
    if (proof != null) {
      return proof;
    }
    // A live sidecar answers within a tick or two of being asked: only a longer silence is worth a Warning.
    Workflow.await(min(OldPrimaryProof.QUIET_WAIT, OldPrimaryProof.remaining(FailoverRun.now(), leaseDeadline)),
        answer::isCompleted);
    proof = settle();
    if (proof != null) {
      return proof;
    }
    Duration left = OldPrimaryProof.remaining(FailoverRun.now(), leaseDeadline);
    warn.accept(Events.OLD_PRIMARY_LEASE_WAIT, OldPrimaryProof.waitMessage(site, left, leaseDeadline, peek()));
    Workflow.await(left, answer::isCompleted);
    proof = OldPrimaryProof.settle(peek(), false);
    if (proof != null) {
      return proof;
    }
    // The sidecar gave up (or its activity failed) before the deadline: the lease is the bound,
    // the longer one the sidecar reported if it did.
    extendToReportedLease();
    Workflow.sleep(OldPrimaryProof.remaining(FailoverRun.now(), leaseDeadline));
    return Proof.LEASE_EXPIRED;
  }

  private Proof settle() {
    extendToReportedLease();
    return OldPrimaryProof.settle(peek(), !FailoverRun.now().isBefore(leaseDeadline));
  }

  /** Waits out the longest lease the old primary's sidecar may hold: the spec's, or the one it reported. */
  private void extendToReportedLease() {
    Confirmation last = peek();
    if (last != null && last.last() != null) {
      leaseDeadline = OldPrimaryProof.leaseDeadline(namedAt, plan.config(), last.last());
    }
  }

  /** The sidecar's answer if it has come, a failed activity as an unconfirmed answer; else null. */
  private Confirmation peek() {
    if (answer == null || !answer.isCompleted()) {
      return null;
    }
    try {
      return answer.get();
    } catch (ActivityFailure e) {
      return new Confirmation(false, null, Failures.rootMessage(e), 0);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

}
