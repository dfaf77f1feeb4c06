package io.shipstream.failover.worker;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.activities.dragonfly.DragonflyActivitiesImpl;
import io.shipstream.failover.activities.dragonfly.StoreConnections;
import io.shipstream.failover.activities.dryrun.DryRunActivitiesImpl;
import io.shipstream.failover.activities.hooks.HookActivitiesImpl;
import io.shipstream.failover.activities.kubernetes.KubernetesActivitiesImpl;
import io.shipstream.failover.activities.mysql.MysqlActivitiesImpl;
import io.shipstream.failover.activities.sidecar.PodWatcherReplicas;
import io.shipstream.failover.activities.sidecar.SidecarActivitiesImpl;
import io.shipstream.failover.activities.sidecar.WatcherReplicas;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.workflows.dryrun.DryRunWorkflowImpl;
import io.shipstream.failover.workflows.emergency.EmergencyFailoverWorkflowImpl;
import io.shipstream.failover.workflows.planned.PlannedFailoverWorkflowImpl;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * What the worker hosts: every workflow implementation and every activity implementation. A new
 * workflow (the emergency failover, say) is added to {@link #WORKFLOWS} and nowhere else.
 */
public final class Registrations {
  public static final List<Class<?>> WORKFLOWS = List.of(
      PlannedFailoverWorkflowImpl.class,
      EmergencyFailoverWorkflowImpl.class,
      DryRunWorkflowImpl.class);

  private Registrations() {}

  /**
   * The activity implementations, wired to the cluster the worker runs against; {@code
   * sidecarToken} (null: none) is what the sidecar activity presents to the sidecars.
   */
  public static List<Object> activities(KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken) {
    return activities(kubernetes, clock, sidecarToken, ControlPlaneTls.none(), WatcherReplicas.UNKNOWN, null);
  }

  private static List<Object> activities(KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken,
      ControlPlaneTls sidecarTls, WatcherReplicas watchers, String connectionsQueue) {
    return List.of(
        new MysqlActivitiesImpl(new SecretCredentialsProvider(kubernetes, clock), clock, connectionsQueue),
        new KubernetesActivitiesImpl(kubernetes, clock),
        new DragonflyActivitiesImpl(StoreConnections.warmedUp(), clock),
        // Each group's sidecars are asked with that group's credential; the shared token for a group naming none.
        new SidecarActivitiesImpl(clock, sidecarToken, new SidecarCredentials(kubernetes, clock), sidecarTls,
            watchers),
        new HookActivitiesImpl(kubernetes),
        new DryRunActivitiesImpl(new SecretCredentialsProvider(kubernetes, clock), kubernetes));
  }

  /** The watcher's replicas as {@code config} places them, on {@code kubernetes}; unknown when it does not. */
  public static WatcherReplicas watcherReplicas(WorkerConfig config, KubernetesClient kubernetes) {
    WorkerConfig.WatcherPods pods = config.watcherPods();
    return pods == null ? WatcherReplicas.UNKNOWN
        : new PodWatcherReplicas(kubernetes, pods.namespace(), pods.selector(), config.sidecarTls(), pods.tlsName());
  }

  /**
   * Polls {@code taskQueue} with every workflow and activity, and a queue of this process alone
   * ({@link #ownQueue}) with the same MySQL activities instance, whose kept connections the write
   * window's steps are sent to ({@code MysqlActivities#connectionsQueue}). Returns the shared
   * queue's worker.
   */
  public static Worker register(WorkerFactory factory, String taskQueue, WorkerOptions options,
      KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken) {
    return register(factory, taskQueue, options, kubernetes, clock, sidecarToken, ControlPlaneTls.none(),
        WatcherReplicas.UNKNOWN);
  }

  /**
   * {@link #register} whose sidecar calls verify https URLs with {@code sidecarTls}'s CA, reading
   * the watcher's replicas at {@code watchers} for the last renewal of an old primary's lease.
   */
  public static Worker register(WorkerFactory factory, String taskQueue, WorkerOptions options,
      KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken, ControlPlaneTls sidecarTls,
      WatcherReplicas watchers) {
    String own = ownQueue(taskQueue);
    List<Object> activities = activities(kubernetes, clock, sidecarToken, sidecarTls, watchers, own);
    Worker worker = factory.newWorker(taskQueue, options);
    worker.registerWorkflowImplementationTypes(WORKFLOWS.toArray(Class<?>[]::new));
    worker.registerActivitiesImplementations(activities.toArray());
    Object mysql = activities.stream().filter(MysqlActivitiesImpl.class::isInstance).findFirst().orElseThrow();
    factory.newWorker(own, options).registerActivitiesImplementations(mysql);
    return worker;
  }

  /**
   * A queue for this worker process alone, next to {@code shared}; unique per start, so a
   * restarted worker never takes over a dead one's queue (a step sent there is not started, and
   * the workflow sends it to the shared queue instead).
   */
  static String ownQueue(String shared) {
    return shared + "-worker-" + UUID.randomUUID();
  }
}
