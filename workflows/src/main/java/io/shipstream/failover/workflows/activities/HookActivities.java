package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupRef;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The failover webhooks of {@code spec.hooks}: a POST of the failover's JSON description to the
 * hook's URL. The activity type is prefixed (HookPost). The bearer token travels by its Secret's
 * name only: the activity reads its value from the API server, so it is never in a workflow's
 * input or history.
 */
@ActivityInterface(namePrefix = "Hook")
public interface HookActivities {

  /**
   * POSTs {@code call.body()} as JSON to {@code call.url()}, with {@code Authorization: Bearer} from
   * the Secret when one is named, waiting at most {@code call.timeoutMillis()} for the answer.
   * Returns a 2xx answer; any other answer is a retryable {@code HookRefused} failure whose message
   * is the status and the first 200 characters of the body, no answer a retryable {@code
   * HookUnreachable}, a Secret that cannot be read a retryable {@code CredentialsUnavailable}.
   */
  @ActivityMethod
  Answer post(Call call);

  /**
   * One hook call. {@code bearerTokenSecret} and {@code bearerTokenKey} name the Secret (in the
   * group's namespace) and its key, both null to send no token.
   */
  record Call(GroupRef group, String url, long timeoutMillis, String bearerTokenSecret, String bearerTokenKey,
      Body body) {}

  /**
   * The JSON body every hook receives, documented in the README's "Hooks". A field that is not
   * known at the time of the call is null.
   *
   * @param group the MysqlFailoverGroup's name
   * @param namespace its namespace
   * @param kind {@code planned} or {@code emergency}
   * @param phase {@code pre} or {@code post}
   * @param source the site the primary moves from (the failed site of an emergency failover)
   * @param target the site it moves to
   * @param sourceGtidSet planned: the source's GTID set at its fence; emergency: the failed primary's
   *     last known set
   * @param targetGtidSet pre: the target's set when the request was validated (planned); post: the
   *     target's set at its promotion
   * @param transactionsLost post: transactions of the source the target does not hold (null: unknown)
   * @param lostGtidSet post, emergency: those transactions as a GTID set
   * @param outcome post: {@code Succeeded} or {@code Failed}
   * @param reason post: the reason of a failure
   * @param message post: the status message
   * @param workflowId the failover's Temporal workflow id
   * @param time when the call was made (the workflow's clock), RFC 3339
   */
  record Body(String group, String namespace, String kind, String phase, String source, String target,
      String sourceGtidSet, String targetGtidSet, Long transactionsLost, String lostGtidSet, String outcome,
      String reason, String message, String workflowId, String time) {}

  /** A 2xx answer: the status and the first 200 characters of the body. */
  record Answer(int status, String body) {}
}
