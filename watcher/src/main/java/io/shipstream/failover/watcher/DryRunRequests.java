package io.shipstream.failover.watcher;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.watcher.groups.GroupChanges;
import io.shipstream.failover.workflows.DryRunWorkflow;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the dry-run annotation into a dry-run workflow, once per appearance of a value (as {@link
 * PlannedFailoverRequests} does for real requests; the run removes the annotation when it has
 * recorded its verdict). The run gets what only the watcher knows of a real request's fate: whether
 * the group is paused or being deleted, and which failover holds the group's workflow id. Nothing
 * here refuses or holds anything: the verdict is the workflow's. One thread, in order; only the
 * leading replica has one.
 */
public final class DryRunRequests implements GroupChanges, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DryRunRequests.class);
  private static final long RETRY_MILLIS = 2_000;

  private final FailoverStarter starter;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  /** The value each group's last dry run was started for, until the annotation is seen gone or changed. */
  private final Map<GroupRef, String> started = new ConcurrentHashMap<>();
  private final HandlerQueue queue = new HandlerQueue("dry-run-requests");

  public DryRunRequests(FailoverStarter starter, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock) {
    this.starter = starter;
    this.latest = latest;
    this.clock = clock;
  }

  @Override
  public void changed(GroupRef ref) {
    queue.submit(() -> handle(ref));
  }

  @Override
  public void deleted(GroupRef ref) {
    queue.submit(() -> started.remove(ref));
  }

  /** Visible for tests: processes one group now, on the caller's thread. */
  void handle(GroupRef ref) {
    Optional<MysqlFailoverGroup> current = latest.apply(ref);
    String value = current.map(g -> g.annotation(DryRunAnnotation.ANNOTATION)).orElse(null);
    if (value == null) {
      started.remove(ref);
      return;
    }
    if (value.equals(started.get(ref))) {
      return;
    }
    MysqlFailoverGroup group = current.get();
    try {
      boolean paused = PauseAnnotation.pauses(PauseAnnotation.read(group.annotation(PauseAnnotation.ANNOTATION)));
      String running = starter.runs().currentFailover(ref).map(FailoverRuns.Running::workflowType).orElse(null);
      starter.startDryRun(new DryRunWorkflow.Request(ref, value, paused, GroupDeletion.deleting(group), running),
          clock.millis());
      started.put(ref, value);
    } catch (RuntimeException e) {
      // Temporal unreachable: the request stays on the resource; try again shortly.
      log.warn("{}: could not start the dry run '{}': {}", ref, value, e.toString());
      queue.schedule(() -> handle(ref), RETRY_MILLIS);
    }
  }

  /** Visible for tests: returns once everything queued before the call has been handled. */
  void awaitQueued() throws InterruptedException {
    queue.awaitQueued();
  }

  @Override
  public void close() {
    queue.close();
  }
}
