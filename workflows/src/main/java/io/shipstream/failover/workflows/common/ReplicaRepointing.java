package io.shipstream.failover.workflows.common;

import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Points replicas at the primary a failover just made, side by side, with GTID auto-positioning
 * ({@link MysqlActivities#replicateFrom}). Shared by the emergency and the planned runbook: each
 * decides which replicas to re-point and what a failure means to the operator, and this starts the
 * calls and says how each one ended. They run in parallel so that a slow replica costs its own
 * timeout, not the sum of all. Workflow code: the calls are activities.
 */
public final class ReplicaRepointing {
  private final MysqlActivities mysql;
  private final MysqlTarget newPrimary;
  private final Map<String, Promise<Void>> started = new LinkedHashMap<>();
  private final Map<String, MysqlTarget> replicas = new LinkedHashMap<>();

  /** @param mysql the stub the runbook uses for this call, so its history keeps one kind of call */
  public ReplicaRepointing(MysqlActivities mysql, MysqlTarget newPrimary) {
    this.mysql = mysql;
    this.newPrimary = newPrimary;
  }

  /** Starts pointing {@code replica} at the new primary; the outcome is read with {@link #failure}. */
  public void start(MysqlTarget replica) {
    started.put(replica.site(), Async.procedure(mysql::replicateFrom, replica, newPrimary));
    replicas.put(replica.site(), replica);
  }

  /** The server of {@code site}, which must have been started. */
  public MysqlTarget replica(String site) {
    return replicas.get(site);
  }

  public boolean started(String site) {
    return started.containsKey(site);
  }

  /**
   * Waits for the re-pointing of {@code site}, which must have been started: empty once it
   * replicates from the new primary, otherwise why it does not. A caller reads the sites in its
   * own order, so its warnings keep the order its stored histories have.
   */
  public Optional<String> failure(String site) {
    try {
      started.get(site).get();
      return Optional.empty();
    } catch (ActivityFailure e) {
      return Optional.of(Failures.rootMessage(e));
    }
  }
}
