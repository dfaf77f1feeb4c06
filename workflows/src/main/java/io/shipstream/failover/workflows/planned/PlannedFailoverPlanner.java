package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.PlannedTarget;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Validating phase as a pure function: given the resource, the request and what the servers
 * say, decide whether to go on, refuse or wait out the cooldown. No I/O, no clock: the workflow
 * passes {@code now} from {@code Workflow.currentTimeMillis()}, so this is replay-safe and
 * unit-testable. Whether the target could take over, and from which source, is {@link
 * PlannedTarget}'s rule, the one each site's standing readiness applies too; the planner adds the
 * request's own checks (annotation, spec, site) and the cooldown.
 */
public final class PlannedFailoverPlanner {
  private PlannedFailoverPlanner() {}

  /**
   * What the workflow needs to act: who is fenced, who is promoted, and the time budgets.
   * {@code targetReplicatesFromSource}: when validated, the target replicated directly from the
   * source's MySQL endpoint as the spec names it (host case-insensitively, and port). Then, once
   * the lag gate saw the target execute the fenced source's whole set, everything in its relay log
   * is applied already (the frozen source can have sent nothing else), so its promotion needs no
   * first read to decide on a relay drain and can be one exchange ({@code MysqlActivities#promote}).
   * {@code catchUpBeforeFence}: the source's GTID set when validated, when the target lacked part of
   * it then ({@link #catchUpBeforeFence}); null when it held all of it.
   */
  public record Plan(GroupConfig config, SiteSpec source, SiteSpec target, Duration maxLagWait,
      boolean targetReplicatesFromSource, String catchUpBeforeFence) {}

  /**
   * The longest the target is waited for before the fence ({@link Plan#catchUpBeforeFence}), and
   * at most maxLagWait: a planned failover that is not waiting holds an emergency failover back, so
   * this wait stays short whatever maxLagWait says.
   */
  public static final Duration CATCH_UP_BEFORE_FENCE_AT_MOST = Duration.ofSeconds(3);

  public sealed interface Decision permits Proceed, Reject, Defer {}

  public record Proceed(Plan plan) implements Decision {}

  public record Reject(Reason reason, String message, String target) implements Decision, Precheck {}

  public record Defer(Instant retryAfter, String message) implements Decision {}

  /** The outcome of the checks that need no server. */
  public sealed interface Precheck permits CheckedRequest, Reject {}

  /** A request that names a known candidate site of a valid spec. */
  public record CheckedRequest(GroupConfig config, PlannedFailoverAnnotation annotation) implements Precheck {}

  /**
   * An annotation value read once for a whole request: the request it makes, or (null) the
   * refusal of a malformed value, {@code malformed}.
   */
  public record ParsedRequest(PlannedFailoverAnnotation annotation, Reject malformed) {
    public static ParsedRequest of(String annotationValue) {
      try {
        return new ParsedRequest(PlannedFailoverAnnotation.parse(annotationValue), null);
      } catch (IllegalArgumentException e) {
        return new ParsedRequest(null, new Reject(Reason.InvalidAnnotation, "invalid planned-failover annotation '"
            + (annotationValue == null ? "" : annotationValue) + "': " + e.getMessage(), null));
      }
    }
  }

  /** Parses and checks the request against the spec; a {@link Reject} means no server is touched. */
  public static Precheck precheck(GroupSnapshot snapshot, String annotationValue) {
    return precheck(snapshot, ParsedRequest.of(annotationValue));
  }

  /** Checks the request parsed already against the spec; a {@link Reject} means no server is touched. */
  public static Precheck precheck(GroupSnapshot snapshot, ParsedRequest request) {
    if (request.malformed() != null) {
      return request.malformed();
    }
    PlannedFailoverAnnotation annotation = request.annotation();
    GroupConfig config;
    try {
      config = GroupConfig.resolve(snapshot.spec());
    } catch (GroupConfig.InvalidSpecException e) {
      return new Reject(Reason.InvalidSpec, e.getMessage(), annotation.targetSite());
    }
    String target = annotation.targetSite();
    Optional<SiteSpec> targetSite = config.site(target);
    if (targetSite.isEmpty()) {
      return new Reject(Reason.UnknownSite, "unknown site '" + target + "': the group's sites are "
          + config.sites().stream().map(SiteSpec::name).toList(), target);
    }
    MysqlFailoverGroupStatus status = snapshot.status();
    PlannedTarget.Refused refused = PlannedTarget.request(targetSite.get(), status == null ? null : status.activeSite(),
        status != null && FencedSites.contains(status.fencedSites(), target));
    if (refused != null) {
      return reject(refused, target);
    }
    return new CheckedRequest(config, annotation);
  }

  /**
   * Decides with the servers' state in hand. {@code states} holds every site that could be
   * inspected, by name.
   */
  public static Decision decide(CheckedRequest request, MysqlFailoverGroupStatus status,
      Map<String, ServerState> states,
      Instant now) {
    GroupConfig config = request.config();
    String targetName = request.annotation().targetSite();
    SiteSpec target = config.site(targetName).orElseThrow();

    Optional<Instant> cooldownEnds = cooldownEnd(status, config.failoverCooldown());
    if (cooldownEnds.isPresent() && now.isBefore(cooldownEnds.get())) {
      String when = cooldownEnds.get().toString();
      if (config.onCooldown() == GroupConfig.OnCooldown.defer) {
        return new Defer(cooldownEnds.get(), "failover cooldown active: deferred until " + when);
      }
      return new Reject(Reason.CooldownActive, "failover cooldown active since the last promotion at "
          + status.cooldownSince() + "; retry after " + when, targetName);
    }

    Map<String, PlannedTarget.Reading> readings = new LinkedHashMap<>();
    states.forEach((site, state) -> readings.put(site, reading(state)));
    PlannedTarget.Outcome outcome =
        PlannedTarget.servers(config, targetName, status == null ? null : status.activeSite(),
            readings);
    if (!outcome.accepted()) {
      return reject(outcome.refused(), targetName);
    }
    SiteSpec source = config.site(outcome.source()).orElseThrow();
    ServerState t = states.get(targetName);
    Duration maxLagWait = request.annotation().maxLagWait().orElse(config.maxLagWait());
    return new Proceed(new Plan(config, source, target, maxLagWait, OtherReplicas.isSite(source, t),
        catchUpBeforeFence(states.get(source.name()), t)));
  }

  /**
   * What the target is to execute before the source is fenced: the source's set when validated, if
   * the target lacked any of it. Waiting for it while writes still flow leaves the lag gate, inside
   * the write window, only what the source commits in the meantime; a target that was still
   * connecting to its source (a replica re-pointed moments ago) or that lagged behind a slow link
   * would otherwise have its whole lag inside the window. Null when the target held all of it, or
   * when a set is missing or unreadable (the lag gate, after the fence, reports that).
   *
   * <p>Also null for a target that is streaming and current: both its threads running, its
   * replication delay 0 s, and at most {@link #CURRENT_LAG_TRANSACTIONS} transactions short. Under
   * a steady write load every replica is a few transactions short at any instant, and the wait
   * before the fence (an activity and a workflow task more, tens of milliseconds) would buy nothing:
   * the lag gate after the fence waits for those few and for what comes after them alike.
   */
  static String catchUpBeforeFence(ServerState source, ServerState target) {
    if (source == null || target == null || source.gtidExecuted() == null || target.gtidExecuted() == null) {
      return null;
    }
    try {
      GtidSet wanted = GtidSet.parse(source.gtidExecuted());
      GtidSet lacking = wanted.subtract(GtidSet.parse(target.gtidExecuted()));
      if (lacking.isEmpty() || streamingAndCurrent(target, lacking)) {
        return null;
      }
      return source.gtidExecuted();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** At most this many transactions short, a streaming replica with no delay needs no wait before the fence. */
  static final long CURRENT_LAG_TRANSACTIONS = 10;

  private static boolean streamingAndCurrent(ServerState target, GtidSet lacking) {
    return target.replicating() && Long.valueOf(0).equals(target.secondsBehindSource())
        && lacking.count() <= CURRENT_LAG_TRANSACTIONS;
  }

  /**
   * For a dry run: what the re-pointing after the promotion would do with each site the failover
   * neither fences nor promotes, by {@link OtherReplicas}' own rule applied to the sites as read
   * now (the new primary will hold the source's set): site to null when it would be re-pointed or
   * left as it is, to the report otherwise. Only sites that would be re-pointed or reported are listed.
   */
  public static Map<String, String> repointingForecast(Plan plan, Map<String, ServerState> states) {
    ServerState source = states.get(plan.source().name());
    List<String> newPrimary = java.util.Collections.singletonList(source == null ? null : source.gtidExecuted());
    Map<String, String> forecast = new java.util.LinkedHashMap<>();
    for (SiteSpec site : OtherReplicas.others(plan)) {
      OtherReplicas.Step step = OtherReplicas.step(plan, site.name(), states.get(site.name()), newPrimary);
      if (step.repoint() || step.report() != null) {
        forecast.put(site.name(), step.report());
      }
    }
    return forecast;
  }

  /**
   * A refusal of the shared target rule ({@link PlannedTarget}) as this runbook's reason code: the
   * codes the status, Events and histories have always carried.
   */
  private static Reject reject(PlannedTarget.Refused refused, String target) {
    Reason reason = switch (refused.refusal()) {
      case NotCandidate -> Reason.TargetNotCandidate;
      case ActiveSite -> Reason.AlreadyActive;
      case Fenced -> Reason.TargetFenced;
      case NoSource, SourceReadOnly -> Reason.NoActivePrimary;
      case SourceUnreachable -> Reason.SourceCrashed;
      case TargetNotRead, TargetUnreachable, TargetWritable, ReplicationStopped -> Reason.TargetUnhealthy;
    };
    return new Reject(reason, refused.message(), target);
  }

  /** What the target rule needs of an inspection. */
  private static PlannedTarget.Reading reading(ServerState s) {
    return new PlannedTarget.Reading(s.reachable(), s.error(), s.readOnly(), s.replicating(), s.ioThreadRunning(),
        s.sqlThreadRunning());
  }

  /**
   * When the anti-flap cooldown that started at the last promotion that took effect ends, if there
   * was one ({@link MysqlFailoverGroupStatus#cooldownSince}): a failover rolled back before its
   * promotion took effect starts none.
   */
  public static Optional<Instant> cooldownEnd(MysqlFailoverGroupStatus status, Duration cooldown) {
    if (status == null || status.cooldownSince() == null || cooldown.isZero()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(status.cooldownSince()).plus(cooldown));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
