package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What one {@link GroupPass} of one group read and decided, handed from step to step. */
final class Pass {
  final WatchedGroup watched;
  final GroupRef group;
  final GroupConfig config;
  final Optional<MysqlFailoverGroup> resource;
  final MysqlFailoverGroupStatus status;
  final Instant now;
  final Map<String, SiteObservation> observations;
  Optional<PromoteAnywayAnnotation> promoteAnyway;
  Optional<PauseAnnotation> pause;
  boolean paused;
  /** The sites a DBA fenced, as accepted now: the matrix, the routing and the conditions act on these. */
  List<String> fenced;
  Optional<GroupConditions.Problem> fenceProblem = Optional.empty();
  Instant unfencedAt;
  Adoption.Decision adoption;
  TopologyMatrix.Input input;
  PrimaryConfirmation.Result confirmation;
  Verdict verdict;
  boolean runOwns;
  List<SiteReadiness.Readiness> readiness;
  List<String> routingProblems = List.of();
  Optional<GroupConditions.Problem> semiSyncProblem = Optional.empty();

  Pass(WatchedGroup watched, Optional<MysqlFailoverGroup> resource, Instant now) {
    this.watched = watched;
    this.group = watched.polls.group();
    this.config = watched.polls.config();
    this.resource = resource;
    this.status = resource.map(MysqlFailoverGroup::getStatus).orElse(MysqlFailoverGroupStatus.empty());
    this.now = now;
    this.observations = watched.polls.observations();
    this.fenced = status.fencedSites() == null ? List.of() : status.fencedSites();
  }

  /** The status as this pass leaves it: the site just adopted active, the fenced sites as accepted. */
  MysqlFailoverGroupStatus effective() {
    return (adoption instanceof Adoption.Adopt a ? status.withActiveSite(a.site()) : status).withFencedSites(fenced);
  }

  Instant cooldownSince() {
    if (status.cooldownSince() == null) {
      return null;
    }
    try {
      return Instant.parse(status.cooldownSince());
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * What {@code spec.semiSync} asks that the servers' flavor cannot do, when the spec declares no
   * flavor and the servers say MariaDB: reported as the spec's own problems would be.
   */
  Optional<String> semiSyncFlavorProblem() {
    return observations.values().stream().map(o -> o.lastReachable() == null ? null : o.lastReachable().flavor())
        .filter(Objects::nonNull).findFirst().map(flavor -> config.semiSync().flavorProblem(flavor));
  }
}
