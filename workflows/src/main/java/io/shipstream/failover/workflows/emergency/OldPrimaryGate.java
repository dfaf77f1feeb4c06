package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus.OldPrimaryWait;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities.Confirmation;
import io.shipstream.failover.workflows.activities.SidecarActivities.Renewal;
import io.shipstream.failover.workflows.activities.SidecarActivities.RenewalAsk;
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
import java.util.List;
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
  /**
   * The change id of reading when the old primary's lease was last renewed ({@link
   * SidecarActivities#lastRenewal}) and counting the wait from then when that is before the
   * naming; without its marker (a failover started by 0.1.0 or 0.2.x) the wait counts from the
   * naming.
   */
  static final String WAIT_FROM_LAST_RENEWAL = "old-primary-wait-from-last-renewal";
  private final EmergencyPlan plan;
  private final Route route;
  private final Instant namedAt;
  /**
   * Whence the lease counts: the naming, or the old primary's last renewal (plus a request's
   * timeout) once that is read and earlier.
   */
  private Instant leaseFrom;
  /** The lease's deadline, pushed back when the sidecar reports running with a longer lease. */
  private Instant leaseDeadline;
  /** The read of the lease's last renewal; null when not read (no sidecar, or a run that predates it). */
  private Promise<Renewal> renewal;
  /** What the read said, once taken into the wait; null before. */
  private Renewal renewalRead;
  /** The workflow's time when the read's result reached it, which is no earlier than the read's end. */
  private Instant renewalReadAt;
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
    this.leaseFrom = namedAt;
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
      if (Workflow.getVersion(WAIT_FROM_LAST_RENEWAL, Workflow.DEFAULT_VERSION, 1) == 1) {
        gate.readLastRenewal();
      }
    }
    return gate;
  }

  /**
   * Starts reading when the old primary's lease was last renewed, from every process that renews
   * it: the other sites' sidecars (its peers) and the watcher's replicas. They take up the new view
   * within a tick of the naming, so the read is given two peer-check intervals and 2 s more.
   */
  private void readLastRenewal() {
    Duration budget = plan.config().peerCheckInterval().multipliedBy(2).plus(RENEWAL_READ_SLACK);
    List<String> peers = plan.config().sites().stream()
        .filter(s -> !s.name().equals(plan.failed().name()))
        .map(OldPrimaryProof::sidecarUrl)
        .filter(url -> url != null)
        .toList();
    SidecarActivities reader = ActivityStubs.sidecarWait(budget,
        "read when the lease of " + plan.failed().name() + "'s sidecar was last renewed");
    renewal = Async.function(reader::lastRenewal, new RenewalAsk(plan.group().namespace(), plan.group().name(),
        plan.failed().name(), plan.target().name(), namedAt, peers, namedAt.plus(budget))).thenApply(r -> {
          renewalReadAt = FailoverRun.now();
          return r;
        });
  }

  /** Beyond two peer-check intervals, for the read of the last renewal. */
  static final Duration RENEWAL_READ_SLACK = Duration.ofSeconds(2);

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
      case LEASE_EXPIRED -> warn.accept(Events.OLD_PRIMARY_LEASE_EXPIRED, message + renewalSentence());
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
    if (renewal != null) {
      // The read ends within its budget, long before the bound: wait for it (or the sidecar) first.
      Workflow.await(OldPrimaryProof.remaining(FailoverRun.now(), deadline()),
          () -> renewal.isCompleted() || answer.isCompleted());
      proof = settle();
      if (proof != null) {
        return proof;
      }
      takeLastRenewal();
    }
    Instant deadline = deadline();
    show.accept(new OldPrimaryWait(Duration.between(namedAt, deadline).toMillis() / 1000.0, deadline.toString(),
        bound.reading().name(), bound.basis() + renewalSentence()));
    warn.accept(Events.OLD_PRIMARY_LEASE_WAIT, OldPrimaryProof.waitMessage(site,
        OldPrimaryProof.remaining(FailoverRun.now(), deadline), deadline, peek(), bound) + renewalSentence());
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
   * Counts the lease from the old primary's last renewal when the read found one before the naming:
   * its sidecar counted that contact when the answer reached it, at most a request's timeout ({@link
   * SidecarLiveness#MAX_REQUEST_TIMEOUT}) later. The read's age is measured by the worker and laid
   * on the workflow's clock at the read's completion, which is no earlier than the read's end, so
   * the renewal is never placed earlier than it was. A read without an anchor, or a failed one,
   * leaves the lease counted from the naming; a failover 0.1.0 started never reads.
   */
  private void takeLastRenewal() {
    if (!renewal.isCompleted()) {
      return;
    }
    try {
      renewalRead = renewal.get();
    } catch (ActivityFailure e) {
      renewalRead = Renewal.unknown("the read failed: " + Failures.rootMessage(e), 0);
    }
    if (!renewalRead.anchored() || released) {
      return;
    }
    Instant counted = renewalReadAt.minusMillis(renewalRead.agoMillis()).plus(SidecarLiveness.MAX_REQUEST_TIMEOUT);
    if (counted.isBefore(leaseFrom)) {
      leaseFrom = counted;
      leaseDeadline = OldPrimaryProof.leaseDeadline(leaseFrom, plan.config());
      extendToReportedLease();
    }
  }

  /** For the Events and the status: whence the wait counts, when the last renewal was read. */
  private String renewalSentence() {
    if (renewalRead == null) {
      return "";
    }
    if (renewalRead.anchored() && leaseFrom.isBefore(namedAt)) {
      return "; the lease counted from its last renewal, " + Duration.between(leaseFrom, namedAt).toMillis()
          + " ms before the naming (" + renewalRead.basis() + ")";
    }
    return "; the lease counted from the naming (its last renewal: " + renewalRead.basis() + ")";
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
      leaseDeadline = OldPrimaryProof.leaseDeadline(leaseFrom, plan.config(), last.last());
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
