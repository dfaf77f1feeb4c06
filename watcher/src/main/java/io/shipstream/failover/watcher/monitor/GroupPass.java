package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.GroupFlavors;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.Recovery;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.model.topology.TlsProblems;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.watcher.topology.Duties;
import io.shipstream.failover.watcher.topology.GroupUpkeep;
import io.shipstream.failover.watcher.topology.SiteFences;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One evaluation of one watched group's current view, run after each of its polls on the monitor's
 * evaluation thread. {@link #run} is the table of contents: each step is a method, in the order
 * they run, and each says when it is done. A step that does not apply (the monitor only watches,
 * the group is paused or not adopted yet) does nothing; a step that throws ends the pass, and the
 * next poll evaluates again.
 */
final class GroupPass {
  /** The monitor's log category, as before the pass was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);

  private final VerdictReactions reactions;
  private final TopologyMetrics metrics;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  /** Off: no returning old primary is fenced or brought back. */
  private final Duties.Recovery recovery;
  /** Off: no adoption, routing, semi-sync nor conditions (tests of the other duties). */
  private final Duties.Upkeep upkeep;
  /** Off: the sidecars are not asked how their servers start. */
  private final Duties.Startup startup;
  private final SiteStatusWrites siteStatus;
  /** Whether verdicts are acted on (emergency failovers, fences, recovery), or only reported. */
  volatile boolean acting = true;
  /** Lifts a lease fence of the active primary that nothing explains; off: never (tests of the other duties). */
  volatile Duties.LeaseFences leaseFences = Duties.LeaseFences.OFF;
  /** spec.plannedFailover.onActiveNodeDrain; off: not watched (tests of the other duties). */
  volatile Duties.Drains drains = Duties.Drains.OFF;

  GroupPass(VerdictReactions reactions, TopologyMetrics metrics,
      Function<GroupRef,
      Optional<MysqlFailoverGroup>> latest,
      Clock clock, Duties.Recovery recovery, Duties.Startup startup, Duties.Upkeep upkeep,
      SiteStatusWrites siteStatus) {
    this.reactions = reactions;
    this.metrics = metrics;
    this.latest = latest;
    this.clock = clock;
    this.recovery = recovery;
    this.startup = startup;
    this.upkeep = upkeep;
    this.siteStatus = siteStatus;
  }

  /** The group's polls started: the steps that watch on their own (the sidecars' startup checks) begin. */
  void started(GroupRef ref, GroupConfig config) {
    startup.watch(ref, config);
  }

  /** Reports a spec that is refused or cannot be monitored, as its condition and Event say. */
  void invalidSpec(GroupRef ref, MysqlFailoverGroup resource, List<String> problems) {
    upkeep.invalidSpec(ref, resource, problems);
  }

  /**
   * The group's polls stopped (a spec change restarts them): its {@link WatchedGroup#memory} went
   * with them, and what the steps still keep outside it is forgotten here. The startup checks and a
   * drain episode outlive a restart ({@link #unwatched}).
   */
  void pollsStopped(GroupRef ref) {
    metrics.forget(ref);
    upkeep.forget(ref);
  }

  /** The group is no longer watched (deleted, invalid, not leading): the rest of what the steps keep goes too. */
  void unwatched(GroupRef ref) {
    drains.forget(ref);
    startup.forget(ref);
  }

  /** Every group is unwatched: the group gauges and the steps' own threads go. */
  void close() {
    metrics.state().forgetAll();
    startup.close();
    leaseFences.close();
  }

  /** One evaluation of the group's current view, on the caller's thread. */
  void run(WatchedGroup w) {
    if (w.stopped.get() || !w.polls.everySitePolled()) {
      return;
    }
    try {
      Pass p = observe(w);
      if (p == null || refuseUnusableReadings(p)) {
        return;
      }
      readAnnotations(p);
      acceptFences(p);
      if (awaitsAdoption(p)) {
        adopt(p);
      } else {
        confirm(p);
        fenceReturningOldPrimary(p);
        handOffPlannedRun(p);
        decide(p);
        liftLeaseFence(p);
        switchOverOnDrain(p);
      }
      writeSiteStatus(p);
      recordMetrics(p);
      if (keepsConditions(p)) {
        repairRouting(p);
        keepSemiSync(p);
        writeConditions(p);
      }
    } catch (RuntimeException e) {
      // The next poll evaluates again; the monitor must outlive a Temporal or API outage.
      log.warn("{}: topology evaluation failed: {}", w.polls.group(), e.toString());
      metrics.passFailed(w.polls.group(), "evaluation");
    }
  }

  /** Completes with the group's resource, status and observations read; null on a status this version cannot read. */
  private Pass observe(WatchedGroup w) {
    Optional<MysqlFailoverGroup> resource = latest.apply(w.polls.group());
    if (resource.isPresent() && resource.get().statusUnreadable()) {
      // Nothing is decided on a status this version cannot read (sync stops the group's polls).
      return null;
    }
    return new Pass(w, resource, clock.instant());
  }

  /**
   * Completes true, with status.sites written and the problem reported, when the servers'
   * readings cannot be acted on (mixed or undeclared flavors, refused TLS handshakes); false otherwise.
   */
  private boolean refuseUnusableReadings(Pass p) {
    List<String> flavorProblems = new ArrayList<>(GroupFlavors.problems(p.config, p.observations));
    p.semiSyncFlavorProblem().ifPresent(flavorProblems::add);
    if (!flavorProblems.isEmpty()) {
      // Servers of both flavors (or not the declared one): nothing is adopted, fenced or failed
      // over, and the group is reported as its spec would be had it declared them.
      siteStatus.write(p.watched, p.now, siteStatus.runOwnsStatus(p.watched, p.status, p.now), null);
      if (upkeep.keeps() && p.resource.isPresent()) {
        upkeep.invalidSpec(p.group, p.resource.get(), flavorProblems);
      } else {
        log.warn("{}: not acted on: {}", p.group, String.join("; ", flavorProblems));
      }
      return true;
    }
    List<TlsProblems.Problem> tlsProblems = TlsProblems.problems(p.config, p.observations);
    if (!tlsProblems.isEmpty()) {
      // A site reached but refused in the TLS handshake is up, not lost: nothing is adopted,
      // fenced or failed over on readings that cannot be taken as configured (TlsProblems).
      siteStatus.write(p.watched, p.now, siteStatus.runOwnsStatus(p.watched, p.status, p.now), null);
      metrics.passFailed(p.group, "tls");
      tlsProblems.forEach(t -> metrics.tlsError(p.group, t.site(), t.reason()));
      List<String> messages = tlsProblems.stream().map(TlsProblems.Problem::message).toList();
      if (upkeep.keeps() && p.resource.isPresent()) {
        upkeep.tlsErrors(p.group, p.resource.get(), messages);
      } else {
        log.warn("{}: not acted on: {}", p.group, String.join("; ", messages));
      }
      return true;
    }
    return false;
  }

  /** Completes when the pause and promote-anyway annotations are read, and a change of pause noted (acting only). */
  private void readAnnotations(Pass p) {
    p.promoteAnyway = p.resource.flatMap(r -> PromoteAnywayAnnotation.read(
        r.annotation(PromoteAnywayAnnotation.ANNOTATION), p.config));
    p.pause = p.resource.flatMap(r -> PauseAnnotation.read(r.annotation(PauseAnnotation.ANNOTATION)));
    p.paused = PauseAnnotation.pauses(p.pause);
    if (acting) {
      reactions.pause(p.watched.memory, p.group, p.pause);
    }
  }

  /** Completes when the sites a DBA fenced are accepted, recorded and applied ({@link SiteFences}; acting only). */
  private void acceptFences(Pass p) {
    if (acting && p.resource.isPresent()) {
      SiteFences.Accepted accepted =
          reactions.fences(p.watched.memory, p.group, p.config, p.resource.get(), p.status, p.paused, p.now);
      p.fenced = accepted.sites();
      p.fenceProblem = accepted.problem();
      p.unfencedAt = accepted.activeUnfencedAt();
    }
  }

  /** Whether the group has never recorded an active site: nothing is fenced, promoted or relabelled before it has. */
  private boolean awaitsAdoption(Pass p) {
    return upkeep.keeps() && p.resource.isPresent() && !GroupUpkeep.adopted(p.status);
  }

  /** Completes when the group is adopted (its active site recorded) or the reason it waits is known. */
  private void adopt(Pass p) {
    // A paused group is not adopted either: adopting names the active site, which the sidecars act on.
    p.adoption = p.paused ? new Adoption.Wait("the group is paused (" + PauseAnnotation.ANNOTATION + "=true)")
        : upkeep.adopt(p.group, p.config, p.resource.get(), p.observations);
  }

  /** Completes with the matrix's input built and the replicas' answer about its primary's latest poll, if any. */
  private void confirm(Pass p) {
    MysqlFailoverGroupStatus status = p.status;
    p.input = new TopologyMatrix.Input(p.config, p.observations, status.activeSite(),
        p.cooldownSince(), status.lastFailoverTarget(), GroupUpkeep.plannedFailoverHolds(status), p.now)
        .withFenced(p.fenced).withUnfencedAt(p.unfencedAt);
    p.confirmation = ReplicaConfirmation.about(p.watched, p.observations, PrimaryConfirmation.primaryOf(p.input));
  }

  /** Completes when a returning old primary that accepts writes is fenced, first of all (acting, not paused). */
  private void fenceReturningOldPrimary(Pass p) {
    if (acting && !p.paused) {
      recovery.check(p.watched.memory, p.group, p.config, p.observations, p.status);
    }
  }

  /**
   * Completes when a planned run whose source is confirmed dead has been told (acting, not paused):
   * before the matrix's reaction, so its ConcurrentOperation block is then that hand-off, not an alert.
   */
  private void handOffPlannedRun(Pass p) {
    if (acting && !p.paused) {
      reactions.handOff(p.watched.memory, p.group, p.status, p.input, p.confirmation);
    }
  }

  /** Completes with the matrix's verdict, acted on (failover started, fence, alert) only while acting. */
  private void decide(Pass p) {
    p.verdict = acting ? reactions.react(p.watched.memory, p.group, p.input, p.confirmation, p.promoteAnyway, p.paused)
        : PrimaryConfirmation.evaluate(p.input, p.confirmation);
  }

  /** Completes when a lease fence that alone leaves the group without a primary is asked about or lifted. */
  private void liftLeaseFence(Pass p) {
    if (acting && !p.paused && p.verdict instanceof Verdict.NoPrimary) {
      leaseFences.check(p.watched.memory, p.group, p.config, p.status, p.observations);
    }
  }

  /** Completes when a cordoned active node has asked for its switchover, if the spec wants one (acting only). */
  private void switchOverOnDrain(Pass p) {
    if (acting && p.resource.isPresent()) {
      drains.check(p.group, p.config, p.resource.get(), p.observations, p.paused);
    }
  }

  /**
   * Completes when status.sites, with each site's readiness from this very pass's observations (the
   * matrix's own rule, the active site supposed lost), is written or held back for the running failover.
   */
  private void writeSiteStatus(Pass p) {
    p.runOwns = siteStatus.runOwnsStatus(p.watched, p.status, p.now);
    String activeNow = p.adoption instanceof Adoption.Adopt adopted ? adopted.site() : p.status.activeSite();
    p.readiness = SiteReadiness.evaluate(new TopologyMatrix.Input(p.config, p.observations, activeNow,
        p.cooldownSince(), p.status.lastFailoverTarget(), false, p.now)
        .withFenced(p.fenced), upkeep.semiSyncAcking(p.watched.memory));
    siteStatus.write(p.watched, p.now, p.runOwns, p.readiness);
  }

  /** Completes when the group's readiness, verdict and recovery gauges show this pass. */
  private void recordMetrics(Pass p) {
    metrics.state().readiness(p.group, p.readiness);
    metrics.state().verdict(p.group, p.verdict);
    metrics.state().recovery(p.group, p.status);
  }

  /** Whether routing, semi-sync and conditions are kept: with the upkeep on, for a group that has a resource. */
  private boolean keepsConditions(Pass p) {
    return upkeep.keeps() && p.resource.isPresent();
  }

  /** Completes when the group's routing is set right (just adopted: at once) or what is not is known (not paused). */
  private void repairRouting(Pass p) {
    if (!p.paused) {
      p.routingProblems = upkeep.keepRouting(p.watched.memory, p.group, p.config, p.effective(), p.observations);
    }
  }

  /** Completes when the servers' semi-sync settings are as the spec asks, or the fallback is known (not paused). */
  private void keepSemiSync(Pass p) {
    if (!p.paused) {
      p.semiSyncProblem = upkeep.keepSemiSync(p.watched.memory, p.group, p.config, p.effective(), p.observations);
    }
  }

  /** Completes when the group's conditions say what this pass found, and an Event notes each change. */
  private void writeConditions(Pass p) {
    MysqlFailoverGroupStatus effective = p.effective();
    List<GroupConditions.Problem> problems = new ArrayList<>();
    if (p.confirmation != null && p.confirmation.outcome() == PrimaryConfirmation.Outcome.ALIVE) {
      problems.add(new GroupConditions.Problem(Events.PRIMARY_UNREACHABLE_FROM_WATCHER.reason(),
          PrimaryConfirmation.cutOffMessage(effective.activeSite(), p.confirmation)));
    }
    p.routingProblems.forEach(r -> problems.add(new GroupConditions.Problem(Events.ROUTING_INCOMPLETE.reason(), r)));
    p.promoteAnyway.filter(a -> !a.valid()).ifPresent(a -> problems.add(new GroupConditions.Problem(
        Events.PROMOTE_ANYWAY_REJECTED.reason(), a.problem() + "; nothing was changed, remove or correct it")));
    p.pause.filter(a -> !a.valid()).ifPresent(a -> problems.add(new GroupConditions.Problem(
        Events.PAUSE_REJECTED.reason(), a.problem())));
    p.fenceProblem.ifPresent(problems::add);
    p.semiSyncProblem.ifPresent(problems::add);
    for (String site : startup.startingWritable(p.group)) {
      problems.add(new GroupConditions.Problem(Events.SERVER_STARTS_WRITABLE.reason(), "the server of site "
          + site + " is configured to start writable (its sidecar says so): a restart would take writes before "
          + "anything decides it is the primary; configure MariaDB read_only=ON or MySQL super_read_only=ON"));
    }
    startup.unguarded(p.group).forEach(u -> problems.add(new GroupConditions.Problem(
        Events.SIDECAR_NOT_GUARDED.reason(), u)));
    problems.addAll(startup.controlPlaneProblems(p.group));
    sharedTokenProblem(p.resource.get()).ifPresent(problems::add);
    Map<String, String> stoppedByHand = GroupUpkeep.failoverRunning(p.status) ? Map.of()
        : Recovery.stoppedByHand(p.observations, effective.activeSite());
    if (!stoppedByHand.isEmpty()) {
      // Its own reason: a human stopped it and it stays so, which "impaired" would not say. Last,
      // so that a primary fallen back from semi-sync keeps the condition's reason.
      problems.add(new GroupConditions.Problem(Events.REPLICATION_STOPPED.reason(),
          Recovery.stoppedByHandMessage(stoppedByHand), true));
    }
    upkeep.conditions(p.group, p.resource.get(), new GroupConditions.Facts(p.watched.rejectedSpec,
        effective.activeSite(), p.adoption instanceof Adoption.Adopt ? null : p.adoption,
        GroupUpkeep.failoverRunning(p.status), p.verdict, problems).withPaused(p.paused).withFenced(p.fenced),
        p.runOwns);
  }

  /**
   * A group that names no credential of its own runs on the install's shared token, which opens
   * every such group: it keeps working, Degraded, until it names one.
   */
  static Optional<GroupConditions.Problem> sharedTokenProblem(MysqlFailoverGroup group) {
    var sidecar = group.getSpec() == null ? null : group.getSpec().sidecar();
    if (sidecar != null && sidecar.tokenSecretRef() != null && sidecar.tokenSecretRef().name() != null
        && !sidecar.tokenSecretRef().name().isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new GroupConditions.Problem(Events.SHARED_SIDECAR_TOKEN.reason(), "the group names no "
        + "spec.sidecar.tokenSecretRef: its sidecars, the watcher and the worker use the install's shared token, which "
        + "opens every group that names none; create a Secret with a token of its own, mount it in this group's "
        + "sidecars as AUTH_TOKEN_FILE and name it in spec.sidecar.tokenSecretRef"));
  }
}
