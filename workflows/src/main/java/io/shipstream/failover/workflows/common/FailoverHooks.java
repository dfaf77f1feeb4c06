package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.HooksConfig;
import io.shipstream.failover.model.HooksConfig.Hook;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.activities.HookActivities.Answer;
import io.shipstream.failover.workflows.activities.HookActivities.Body;
import io.shipstream.failover.workflows.activities.HookActivities.Call;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The webhooks of {@code spec.hooks} in a failover, one rule per call. The planned pre-hook is
 * asked before the fence, outside the write window: anything but a 2xx answer within its timeout,
 * retries included, vetoes the failover ({@link #beforePlannedFence}). The emergency pre-hook is
 * sent as the fence starts, beside it, with one attempt of at most about a second: it can neither
 * delay nor stop the failover, and its failure is a Warning ({@link #startBesideEmergencyFence},
 * settled before the outcome is written). The post-hook is called once the outcome is in the
 * status; its failure is a Warning Event and the outcome stands. A hook that is not configured
 * schedules nothing. Workflow code.
 */
public final class FailoverHooks {
  /** Attempts of a planned pre-hook and of every post-hook, all within the hook's timeout. */
  static final int ATTEMPTS = 3;
  static final String PRE = "pre";
  static final String POST = "post";

  private final FailoverRun run;
  private final HooksConfig config;
  private Promise<Answer> emergencyPre;

  FailoverHooks(FailoverRun run, HooksConfig config) {
    this.run = run;
    this.config = config == null ? HooksConfig.NONE : config;
  }

  /**
   * Asks the pre-hook whether the planned failover may fence its source; throws a {@link
   * FailoverAbort} with {@link Reason#PreFailoverHookVetoed} when it did not answer 2xx in time.
   */
  public void beforePlannedFence() {
    Hook hook = config.preFailover();
    if (hook == null) {
      return;
    }
    run.show("asking the pre-failover hook " + shown(hook.url()));
    try {
      Answer answer = ActivityStubs.hook(hook.timeout(), ATTEMPTS, "pre-failover hook " + shown(hook.url()))
          .post(call(hook, hook.timeout(), PRE));
      called(PRE, hook, answer);
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.PreFailoverHookVetoed, "pre-failover hook " + shown(hook.url()) + " "
          + why(e, hook.timeout()) + "; nothing was fenced");
    }
  }

  /** Sends the emergency pre-hook beside the fence: one attempt, at most about a second. */
  public void startBesideEmergencyFence() {
    Hook hook = config.preFailover();
    if (hook == null) {
      return;
    }
    Duration budget = hook.emergencyTimeout();
    emergencyPre = Async.function(ActivityStubs.hook(budget, 1, "pre-failover hook " + shown(hook.url()))::post,
        call(hook, budget, PRE));
  }

  /** Waits for the emergency pre-hook, if one was sent: a failure becomes a Warning and a note. */
  void settlePre() {
    if (emergencyPre == null) {
      return;
    }
    Promise<Answer> pending = emergencyPre;
    emergencyPre = null;
    Hook hook = config.preFailover();
    try {
      called(PRE, hook, pending.get());
    } catch (ActivityFailure e) {
      run.warn(Events.HOOK_FAILED, run.kind.label() + " pre-failover hook " + shown(hook.url()) + " "
          + why(e, hook.emergencyTimeout()) + "; the failover went on");
    }
  }

  /** Calls the post-hook with the outcome, which is already in the status: a failure is a Warning Event. */
  void post() {
    Hook hook = config.postFailover();
    if (hook == null) {
      return;
    }
    try {
      Answer answer = ActivityStubs.hook(hook.timeout(), ATTEMPTS, "post-failover hook " + shown(hook.url()))
          .post(call(hook, hook.timeout(), POST));
      called(POST, hook, answer);
    } catch (ActivityFailure e) {
      run.event(Events.HOOK_FAILED, run.kind.label() + " post-failover hook " + shown(hook.url()) + " "
          + why(e, hook.timeout()) + "; the outcome " + run.progress.phase + " stands");
    }
  }

  private void called(String phase, Hook hook, Answer answer) {
    run.event(Events.HOOK_CALLED, run.kind.label() + " " + phase + "-failover hook " + shown(hook.url())
        + " answered " + answer.status());
  }

  private Call call(Hook hook, Duration budget, String phase) {
    return new Call(run.group, hook.url(), budget.toMillis(), hook.bearerTokenSecret(), hook.bearerTokenKey(),
        body(phase));
  }

  /** The documented JSON body (README "Hooks"), from what the run knows now. */
  Body body(String phase) {
    FailoverProgress p = run.progress;
    boolean post = POST.equals(phase);
    String sourceGtid = run.kind == FailoverKind.PLANNED ? p.sourceGtidAtFence : p.oldPrimaryLastKnownGtid;
    return new Body(run.group.name(), run.group.namespace(), run.kind.label(), phase, p.source, p.target,
        sourceGtid, post ? p.targetGtidAtPromotion : p.targetGtidAtValidation,
        post ? p.transactionsLost : null, post ? p.lostGtid : null,
        post ? p.phase.name() : null, post && p.reason != null ? p.reason.name() : null, post ? p.message : null,
        Workflow.getInfo().getWorkflowId(), FailoverRun.now().toString());
  }

  /**
   * What went wrong, for a user: the hook's own answer when it gave one, else that it gave none in
   * time. A timeout of the whole budget carries the last attempt's failure as its cause.
   */
  static String why(ActivityFailure e, Duration budget) {
    String type = Failures.type(e);
    String last = type == null ? null : Failures.rootMessage(e);
    if (e.getCause() instanceof TimeoutFailure) {
      return "gave no 2xx answer within " + Durations.format(budget) + (last == null ? "" : " (last: " + last + ")");
    }
    if (FailureTypes.HOOK_REFUSED.equals(type) || FailureTypes.HOOK_UNREACHABLE.equals(type)) {
      return last;
    }
    return "failed: " + Failures.rootMessage(e);
  }

  /**
   * The URL as Events and the UI show it: without a query, a fragment or user info, which may hold
   * a secret. Plain string work: workflow code stays clear of the networking package.
   */
  static String shown(String url) {
    int end = url.length();
    for (char c : new char[] {'?', '#'}) {
      int at = url.indexOf(c);
      if (at >= 0 && at < end) {
        end = at;
      }
    }
    String base = url.substring(0, end);
    int scheme = base.indexOf("://");
    if (scheme < 0) {
      return base;
    }
    int authorityStart = scheme + 3;
    int pathStart = base.indexOf('/', authorityStart);
    String authority = pathStart < 0 ? base.substring(authorityStart) : base.substring(authorityStart, pathStart);
    return base.substring(0, authorityStart) + authority.substring(authority.lastIndexOf('@') + 1)
        + (pathStart < 0 ? "" : base.substring(pathStart));
  }
}
