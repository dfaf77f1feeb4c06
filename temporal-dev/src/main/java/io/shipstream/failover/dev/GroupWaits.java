package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/** Waiting for the group's status to get somewhere: adopted, a planned failover in a phase, ended. */
public final class GroupWaits {
  private final GroupApi api;

  GroupWaits(GroupApi api) {
    this.api = api;
  }

  /**
   * Waits until the watcher has adopted the group with {@code site} as the active site and its
   * routing holds: the primary Service's selector picks that site's pod.
   */
  void adopted(String site) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      MysqlFailoverGroupStatus status = api.resource().getStatus();
      if (status != null && site.equals(status.activeSite()) && api.routesTo(site)) {
        return;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the watcher did not adopt " + api.ref().name() + " with " + site
            + " active within 30 s; status " + status + ", events " + api.eventReasons());
      }
      Playground.sleep(20);
    }
  }

  /** Waits until status.plannedFailover satisfies the condition; returns it. */
  public PlannedFailoverStatus planned(Predicate<PlannedFailoverStatus> condition, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<PlannedFailoverStatus> s = api.plannedStatus();
      if (s.isPresent() && condition.test(s.get())) {
        return s.get();
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("status.plannedFailover did not get there within " + timeout + ": " + s);
      }
      Playground.sleep(10);
    }
  }

  /** Waits for the end of the planned failover started by the annotation, and for the annotation to go. */
  public PlannedFailoverStatus plannedEnd(String startedAfter, Duration timeout) {
    PlannedFailoverStatus s = planned(p -> p.phase() != null
        && (p.phase().equals("Succeeded") || p.phase().equals("Failed"))
        && p.startTime() != null && (startedAfter == null || p.startTime().compareTo(startedAfter) >= 0), timeout);
    long until = System.nanoTime() + timeout.toNanos();
    while (api.annotation().isPresent() && System.nanoTime() < until) {
      Playground.sleep(10);
    }
    return s;
  }
}
