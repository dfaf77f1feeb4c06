package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * {@code status.dryRun}: the verdict of the last dry run. Kept apart from {@code
 * status.plannedFailover}, whose phase the watcher acts on: nothing reads this but people and the
 * kubectl plugin. Every field is optional.
 *
 * @param request the annotation's value: a site, or {@code emergency}
 * @param kind {@code switchover} or {@code emergency}
 * @param verdict {@code Ready} (a switchover would start now), {@code WouldWait} (it would wait: the
 *     cooldown with onCooldown=defer, or a planned failover still running), {@code Refused} (it would
 *     fail with {@code reason}); for an emergency precheck {@code WouldPromote} or {@code Blocked}
 * @param reason the reason the real request would fail with or be held by, as {@code
 *     status.plannedFailover.reason} or the emergency block's Event reason would say it; null when ready
 * @param target the switchover's target, or the site the emergency path would promote
 * @param source the site that would be fenced (the active primary)
 * @param lagTransactions the target's (candidate's) executed set against the source's, in transactions
 * @param lagSeconds the lag the target reports now
 * @param estimatedWriteWindowSeconds the write window estimated from the round trips measured to source and
 *     target and the target's lag now; only for a ready switchover
 * @param transactionsLost for an emergency precheck: what the promotion would lose against the primary's
 *     last reading; null when unknown
 * @param findings every check, one line each, in the order they ran
 * @param warnings what would not refuse the request but would make it slow or weaker
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DryRunStatus(
    String request,
    String kind,
    @JsonPropertyDescription("Ready | WouldWait | Refused (switchover); WouldPromote | Blocked (emergency)")
    String verdict,
    String reason,
    String message,
    String target,
    String source,
    String startTime,
    String completionTime,
    Long lagTransactions,
    Long lagSeconds,
    Double estimatedWriteWindowSeconds,
    Long transactionsLost,
    List<String> findings,
    List<String> warnings,
    String workflowId) {

  public static final String SWITCHOVER = "switchover";
  public static final String EMERGENCY = "emergency";
}
