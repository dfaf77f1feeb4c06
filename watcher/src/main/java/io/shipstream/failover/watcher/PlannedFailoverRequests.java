package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the planned-failover annotation into workflow starts and cancels.
 *
 * <p>Informers re-deliver events (resyncs, reconnects, status writes of the workflow itself), so
 * the rule is: one start per appearance of an annotation value. The value is remembered when its
 * workflow starts and forgotten when the annotation is seen gone, which the workflow does itself
 * when it ends. A value that arrives while another planned failover runs is retried until that one
 * ends; one that arrives while an emergency failover runs is refused as ConcurrentOperation.
 * Events are handled on one thread, in order, always against the latest cached object.
 */
public final class PlannedFailoverRequests implements ResourceEventHandler<MysqlFailoverGroup>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PlannedFailoverRequests.class);
  static final Duration RETRY = Duration.ofSeconds(2);

  private final FailoverStarter starter;
  private final RequestRejections rejections;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Map<GroupRef, String> started = new ConcurrentHashMap<>();
  private final ScheduledExecutorService queue = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "planned-failover-requests");
    t.setDaemon(true);
    return t;
  });

  public PlannedFailoverRequests(FailoverStarter starter, RequestRejections rejections,
      Function<GroupRef, Optional<MysqlFailoverGroup>> latest) {
    this.starter = starter;
    this.rejections = rejections;
    this.latest = latest;
  }

  @Override
  public void onAdd(MysqlFailoverGroup group) {
    enqueue(ref(group));
  }

  @Override
  public void onUpdate(MysqlFailoverGroup before, MysqlFailoverGroup after) {
    enqueue(ref(after));
  }

  @Override
  public void onDelete(MysqlFailoverGroup group, boolean finalStateUnknown) {
    GroupRef ref = ref(group);
    queue.execute(() -> {
      if (started.remove(ref) != null) {
        starter.cancelPlanned(ref, "resource deleted");
      }
    });
  }

  private void enqueue(GroupRef ref) {
    queue.execute(() -> handle(ref));
  }

  /** Visible for tests: processes one group now, on the caller's thread. */
  void handle(GroupRef ref) {
    try {
      Optional<MysqlFailoverGroup> current = latest.apply(ref);
      String annotation = current.map(PlannedFailoverRequests::annotation).orElse(null);
      String remembered = started.get(ref);
      if (annotation == null) {
        if (remembered != null) {
          started.remove(ref);
          starter.cancelPlanned(ref, "annotation removed");
        }
        return;
      }
      if (annotation.equals(remembered)) {
        return;
      }
      var outcome = starter.startPlanned(ref, annotation, target(annotation));
      if (outcome instanceof FailoverStarter.Started) {
        started.put(ref, annotation);
      } else if (outcome instanceof FailoverStarter.AlreadyRunning running) {
        if ("PlannedFailover".equals(running.workflowType())) {
          log.info("{}: planned failover request '{}' waits for the running planned failover to end", ref, annotation);
          queue.schedule(() -> handle(ref), RETRY.toMillis(), TimeUnit.MILLISECONDS);
        } else {
          rejections.reject(ref, annotation, target(annotation).orElse(null), "ConcurrentOperation",
              "a " + running.workflowType() + " workflow is running for this group; request refused");
        }
      }
    } catch (RuntimeException e) {
      // The watcher must outlive a Temporal or API outage: try the group again shortly.
      log.warn("{}: could not handle planned-failover request: {}", ref, e.toString());
      queue.schedule(() -> handle(ref), RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  static String annotation(MysqlFailoverGroup group) {
    var annotations = group.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
  }

  private static Optional<String> target(String annotation) {
    try {
      return Optional.of(PlannedFailoverAnnotation.parse(annotation).targetSite());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  static GroupRef ref(MysqlFailoverGroup group) {
    return new GroupRef(group.getMetadata().getNamespace(), group.getMetadata().getName());
  }

  @Override
  public void close() {
    queue.shutdownNow();
  }
}
