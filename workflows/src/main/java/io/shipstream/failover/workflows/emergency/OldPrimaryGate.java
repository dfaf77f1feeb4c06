package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus.OldPrimaryWait;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
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
import java.util.function.Consumer;

/**
 * Holds the candidate's promotion back until the old primary cannot take writes (decided by {@link
 * OldPrimaryProof}; the wait for one nothing confirmed is bounded by {@link GuardRestart}). Started right after the candidate is named active, so the sidecar's answer
 * overlaps the relay drain and the catch-up; {@link #await} is called just before the candidate
 * is made writable. Workflow code: time comes from {@link FailoverRun#now}, the wait
 * is a durable timer.
 */
final class OldPrimaryGate {
  /**
   * The change id of the wait that adds the lease and a hung sidecar's restart up ({@link
   * GuardRestart#bound}); without its marker (a failover started by 0.1.0) the wait is the longer
   * of the two ({@link GuardRestart#boundAsReleased}).
   */
  static final String WAIT_ADDS_LEASE_AND_RESTART = "old-primary-wait-adds-lease-and-restart";
  private final EmergencyPlan plan;
  private final Route route;
  private final Instant namedAt;
  /** The lease's deadline, pushed back when the sidecar reports running with a longer lease. */
  private Instant leaseDeadline;
  /** The sidecar's answer: the first ask's, then the second's, if it was asked again. */
  private Promise<Confirmation> answer;
  /** The old primary's pods' liveness probe, read beside the first ask. */
  private Promise<GuardRestart.Reading> probe;
  /** The wait the probe allows, once read; null before. */
  private GuardRestart.Bound bound;
  /** Whether the wait is 0.1.0's (a run it started), once the bound is read. */
  private boolean released;
  private final BiConsumer<Events, String> warn;
  private final BiConsumer<Events, String> inform;
  private final Consumer<OldPrimaryWait> show;

  private OldPrimaryGate(EmergencyPlan plan, Route route, Instant namedAt, Instant leaseDeadline,
      BiConsumer<Events, String> warn, BiConsumer<Events, String> inform, Consumer<OldPrimaryWait> show) {
    this.plan = plan;
    this.route = route;
    this.namedAt = namedAt;
    this.leaseDeadline = leaseDeadline;
    this.warn = warn;
    this.inform = inform;
    this.show = show;
  }

  /**
   * Starts asking the old primary's sidecar, when there is one to ask, and reading its pods'
   * liveness probe beside it; {@code namedAt} is now. Both run alongside the drain and the
   * catch-up, so a sidecar that confirms at once costs the promotion nothing.
   */
  static OldPrimaryGate start(EmergencyPlan plan, KubernetesActivities k8s, Boolean fencedByWorkflow, Instant namedAt,
      BiConsumer<Events, String> warn, BiConsumer<Events, String> inform, Consumer<OldPrimaryWait> show) {
    Route route = OldPrimaryProof.route(fencedByWorkflow, plan.failed());
    Instant leaseDeadline = OldPrimaryProof.leaseDeadline(namedAt, plan.config());
    OldPrimaryGate gate = new OldPrimaryGate(plan, route, namedAt, leaseDeadline, warn, inform, show);
    if (route == Route.ASK_SIDECAR) {
      gate.probe = Async.function(k8s::sidecarProbe, plan.group(), plan.failed());
      gate.ask(OldPrimaryProof.askDeadline(leaseDeadline));
    }
    return gate;
  }

  /** Asks the sidecar until {@code askDeadline}; the answer replaces any earlier one. */
  private void ask(Instant askDeadline) {
    SidecarActivities sidecar = ActivityStubs.sidecarWait(OldPrimaryProof.remaining(FailoverRun.now(), askDeadline),
        "ask the sidecar of " + plan.failed().name() + " to confirm it is fenced");
    answer = Async.function(sidecar::confirmFenced, OldPrimaryProof.sidecarUrl(plan.failed()), plan.failed().name(),
        plan.target().name(), askDeadline);
  }

  /** Returns once the old primary cannot take writes, or at once when nothing could make sure of it. */
  Proof await() {
    String site = plan.failed().name();
    String target = plan.target().name();
    Proof proof = switch (route) {
      case FENCED_BY_WORKFLOW -> Proof.FENCED_BY_WORKFLOW;
      case NO_SIDECAR -> Proof.NO_SIDECAR;
      case ASK_SIDECAR -> waitForSidecarOrBound(site);
    };
    Confirmation last = peek();
    String message = OldPrimaryProof.confirmedMessage(proof, site, target, last, bound);
    switch (proof) {
      case NO_SIDECAR -> warn.accept(Events.OLD_PRIMARY_NOT_GUARDED, message);
      case LEASE_EXPIRED -> warn.accept(Events.OLD_PRIMARY_LEASE_EXPIRED, message);
      default -> inform.accept(Events.OLD_PRIMARY_FENCE_CONFIRMED, message);
    }
    return proof;
  }

  /**
   * Waits for the sidecar's confirmation or the bound by which its sidecar has fenced the old
   * primary even if it hung ({@link GuardRestart}): the lease for a sidecar that runs, the
   * restart by the kubelet and the boot fence for one that hung, whichever ends later.
   */
  private Proof waitForSidecarOrBound(String site) {
    Proof proof = settle();
    if (proof != null) {
      return proof;
    }
    // A live sidecar answers within a tick or two of being asked: only a longer silence is worth a Warning.
    Workflow.await(min(OldPrimaryProof.QUIET_WAIT, OldPrimaryProof.remaining(FailoverRun.now(), deadline())),
        answer::isCompleted);
    proof = settle();
    if (proof != null) {
      return proof;
    }
    readBound();
    Instant deadline = deadline();
    show.accept(new OldPrimaryWait(Duration.between(namedAt, deadline).toMillis() / 1000.0, deadline.toString(),
        bound.reading().name(), bound.basis()));
    warn.accept(Events.OLD_PRIMARY_LEASE_WAIT, OldPrimaryProof.waitMessage(site,
        OldPrimaryProof.remaining(FailoverRun.now(), deadline), deadline, peek(), bound));
    Workflow.await(OldPrimaryProof.remaining(FailoverRun.now(), deadline), answer::isCompleted);
    proof = OldPrimaryProof.settle(peek(), false);
    if (proof != null) {
      return proof;
    }
    // The ask gave up at the lease's deadline (or its activity failed) while the restart bound
    // runs on: a sidecar the kubelet restarted fences at boot and can confirm it, so it is asked
    // again until the bound rather than left unasked.
    Instant askAgainUntil = OldPrimaryProof.askDeadline(deadline());
    if (OldPrimaryProof.remaining(FailoverRun.now(), askAgainUntil).compareTo(OldPrimaryProof.QUIET_WAIT) > 0) {
      ask(askAgainUntil);
      Workflow.await(OldPrimaryProof.remaining(FailoverRun.now(), deadline()), answer::isCompleted);
      proof = OldPrimaryProof.settle(peek(), false);
      if (proof != null) {
        return proof;
      }
    }
    // The sidecar gave up (or its activity failed) before the deadline: the bound stands, the
    // longer lease the sidecar reported if it did.
    extendToReportedLease();
    Workflow.sleep(OldPrimaryProof.remaining(FailoverRun.now(), deadline()));
    return Proof.LEASE_EXPIRED;
  }

  /**
   * The bound from the old primary's pods, once read; a failed read counts as an unreadable pod,
   * whose bound is Kubernetes' default probe timing, never the bare lease.
   */
  private void readBound() {
    GuardRestart.Reading reading;
    try {
      reading = probe.get();
    } catch (ActivityFailure e) {
      reading = GuardRestart.Reading.unknown(Failures.rootMessage(e));
    }
    // Release 0.1.0 waited the longer of the lease and the restart bound, too short for a sidecar
    // that hangs after the naming while its lease still runs; a failover it started keeps that wait.
    released =
        Workflow.getVersion(WAIT_ADDS_LEASE_AND_RESTART, Workflow.DEFAULT_VERSION, 1)
        == Workflow.DEFAULT_VERSION;
    bound = released
        ? GuardRestart.boundAsReleased(reading, plan.config().leaseTimeout(), plan.config().peerCheckInterval())
        : GuardRestart.bound(reading, plan.config().leaseTimeout(), plan.config().peerCheckInterval());
  }

  /**
   * The lease's deadline and, once it is known, a hung sidecar's restart after it (the longer of
   * the two for a failover 0.1.0 started). The restart counts from the longest lease the sidecar
   * may hold, the spec's or the one it reported: it may run unfenced that long and hang at its end.
   */
  private Instant deadline() {
    if (bound == null) {
      return leaseDeadline;
    }
    if (!released) {
      return leaseDeadline.plus(bound.total().minus(bound.leaseWait()));
    }
    Instant restart = namedAt.plus(bound.total());
    return restart.isAfter(leaseDeadline) ? restart : leaseDeadline;
  }

  private Proof settle() {
    extendToReportedLease();
    return OldPrimaryProof.settle(peek(), false);
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
