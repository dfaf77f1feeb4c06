package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.SidecarActivities.Confirmation;
import io.shipstream.failover.workflows.activities.SidecarActivities.Snapshot;
import java.time.Duration;
import java.time.Instant;

/**
 * Decides when the candidate may be made writable: only once the old primary cannot take writes.
 * Plain code, so every path is tested without Temporal. The old primary may be alive and only cut
 * off from the control plane, or frozen, so a failed fence proves nothing and neither does
 * "unreachable"; what does is the workflow's own fence, its sidecar saying after the naming that
 * the server answered read-only or that its process is dead, or the time by which its sidecar must
 * have fenced it: {@code leaseTimeout} without any contact since the naming fences by rule 2, and a
 * contact since the naming taught it the new active site, which fences by rule 1, both within one
 * more {@code peerCheckInterval}. The lease is the spec's, or a longer one the sidecar reported
 * running with. The lease proves a fence only while the sidecar runs: the wait is never shorter
 * than the time the old primary's liveness probe takes to restart a hung sidecar, which then
 * fences at boot ({@link GuardRestart}). The lease is the weakest proof: a server that was frozen all the
 * while and whose sidecar could not stop it resumes writable, and its sidecar, watching it closely,
 * fences it within a fraction of a second.
 */
final class OldPrimaryProof {
  /** Beyond lease and tick: the sidecar's tick itself and the clocks' drift. */
  static final Duration MARGIN = Duration.ofSeconds(1);
  /** How long the sidecar may take to answer before the wait is reported as a Warning. */
  static final Duration QUIET_WAIT = Duration.ofSeconds(2);

  /** How the wait is settled before it starts. */
  enum Route {
    /** The workflow's own fence confirmed read_only: nothing to wait for. */
    FENCED_BY_WORKFLOW,
    /** Ask the old primary's sidecar, and wait for the lease if it does not confirm. */
    ASK_SIDECAR,
    /** No sidecar: nothing can fence an isolated old primary, so waiting gains nothing. */
    NO_SIDECAR
  }

  /** What allowed the promotion, in the words of the Event that reports it. */
  enum Proof {
    FENCED_BY_WORKFLOW, SIDECAR_CONFIRMED, SIDECAR_SAW_IT_DEAD, LEASE_EXPIRED, NO_SIDECAR
  }

  private OldPrimaryProof() {}

  static Route route(Boolean fencedByWorkflow, SiteSpec oldSite) {
    if (Boolean.TRUE.equals(fencedByWorkflow)) {
      return Route.FENCED_BY_WORKFLOW;
    }
    return sidecarUrl(oldSite) == null ? Route.NO_SIDECAR : Route.ASK_SIDECAR;
  }

  static String sidecarUrl(SiteSpec site) {
    String url = site.sidecar() == null ? null : site.sidecar().url();
    return url == null || url.isBlank() ? null : url;
  }

  /** By this time the old primary's sidecar has fenced it, whatever it could or could not reach. */
  static Instant leaseDeadline(Instant namedAt, GroupConfig config) {
    return namedAt.plus(config.leaseTimeout()).plus(config.peerCheckInterval()).plus(MARGIN);
  }

  /**
   * The deadline for the longest lease the old primary's sidecar may hold: the spec's, or a longer
   * one it reported in {@code reported} (its last {@code /status} answer, or null). A sidecar
   * learns the spec's timing from the watcher; one cut off since before the spec's lease was
   * shortened still holds the lease it last learned, and would fence its server only after that.
   */
  static Instant leaseDeadline(Instant namedAt, GroupConfig config, Snapshot reported) {
    Instant spec = leaseDeadline(namedAt, config);
    if (reported == null || reported.leaseTimeoutMillis() == null || reported.peerCheckIntervalMillis() == null) {
      return spec;
    }
    Instant theirs = namedAt.plusMillis(reported.leaseTimeoutMillis()).plusMillis(reported.peerCheckIntervalMillis())
        .plus(MARGIN);
    return theirs.isAfter(spec) ? theirs : spec;
  }

  /**
   * The activity gives up a little before the lease deadline, so its last problem is known when
   * the workflow's timer fires and the Event can say why the whole wait was needed.
   */
  static Instant askDeadline(Instant leaseDeadline) {
    return leaseDeadline.minus(Duration.ofMillis(500));
  }

  /** The time left to wait; never negative. */
  static Duration remaining(Instant now, Instant deadline) {
    return now.isBefore(deadline) ? Duration.between(now, deadline) : Duration.ZERO;
  }

  /** The proof once the sidecar answered (or null, not yet), with the lease deadline past or not. */
  static Proof settle(Confirmation answer, boolean deadlinePassed) {
    if (answer != null && answer.confirmed()) {
      return answer.last() != null && answer.last().provesDead() ? Proof.SIDECAR_SAW_IT_DEAD : Proof.SIDECAR_CONFIRMED;
    }
    return deadlinePassed ? Proof.LEASE_EXPIRED : null;
  }

  /** Why the sidecar has not confirmed, for the Events. */
  static String whyUnconfirmed(Confirmation answer, String site) {
    if (answer == null) {
      return "its sidecar has not confirmed " + site + " fenced";
    }
    if (answer.problem() != null) {
      // The problem is the activity's whole sentence: a timeout, a refused connection, or the
      // sidecar refusing the worker's token, which is no reachability problem.
      return "its sidecar could not confirm: " + answer.problem();
    }
    if (answer.last() == null) {
      return "its sidecar never answered";
    }
    return "its sidecar last reported active site " + answer.last().activeSite() + " and MySQL "
        + answer.last().mysql();
  }

  static String waitMessage(String site, Duration wait, Instant deadline, Confirmation answer,
      GuardRestart.Bound bound) {
    return "waiting " + seconds(wait) + " s (until " + deadline + ") for " + site + "'s lease to expire"
        + (bound.guarded() ? " and a hung sidecar to be restarted and fence it at boot" : "") + ": "
        + whyUnconfirmed(answer, site) + "; the wait is " + bound.basis();
  }

  static String confirmedMessage(Proof proof, String site, String target, Confirmation answer,
      GuardRestart.Bound bound) {
    return switch (proof) {
      case FENCED_BY_WORKFLOW -> site + " is read-only (fenced by the failover), so " + target
          + " is made writable at once";
      case SIDECAR_CONFIRMED -> site + "'s sidecar confirms " + site + " takes no writes: it answered "
          + answer.last().mysql() + " while knowing active site " + answer.last().activeSite() + ", after "
          + answer.waitedMillis() + " ms";
      case SIDECAR_SAW_IT_DEAD -> site + "'s sidecar confirms " + site + " takes no writes: its server process "
          + "is dead (STOPPED: it exited, or did not answer and was killed by its sidecar), active site "
          + answer.last().activeSite() + ", after " + answer.waitedMillis() + " ms";
      case LEASE_EXPIRED -> bound != null && !bound.guarded()
          ? site + "'s lease expired, but nothing restarts its sidecar should it hang (" + bound.basis() + "): "
              + target + " is made writable without proof that " + site + " is fenced; "
              + whyUnconfirmed(answer, site) + reportedLease(answer)
          : site + "'s lease expired: its sidecar has fenced " + site
              + " by now, by rule 2 if it was cut off, by rule 1 if it learned the new active site, at boot if it hung"
              + " and its liveness probe restarted it; " + whyUnconfirmed(answer, site) + reportedLease(answer)
              + (bound == null ? "" : "; waited " + bound.basis());
      case NO_SIDECAR -> site + " has no sidecar (spec.sites[].sidecar.url), so nothing fences it should it be "
          + "alive but cut off: " + target + " is made writable without waiting and two primaries may take "
          + "writes until " + site + " is fenced by hand";
    };
  }

  /** The lease the sidecar said it runs with, when it said one. */
  private static String reportedLease(Confirmation answer) {
    Snapshot last = answer == null ? null : answer.last();
    if (last == null || last.leaseTimeoutMillis() == null) {
      return "";
    }
    return "; its sidecar runs with a lease of " + seconds(Duration.ofMillis(last.leaseTimeoutMillis())) + " s";
  }

  private static String seconds(Duration d) {
    return GuardRestart.seconds(d);
  }
}
