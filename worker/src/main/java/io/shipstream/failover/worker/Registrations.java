package io.shipstream.failover.worker;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.activities.dragonfly.DragonflyActivitiesImpl;
import io.shipstream.failover.activities.dragonfly.StoreConnections;
import io.shipstream.failover.activities.hooks.HookActivitiesImpl;
import io.shipstream.failover.activities.kubernetes.KubernetesActivitiesImpl;
import io.shipstream.failover.activities.mysql.MysqlActivitiesImpl;
import io.shipstream.failover.activities.sidecar.SidecarActivitiesImpl;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.workflows.emergency.EmergencyFailoverWorkflowImpl;
import io.shipstream.failover.workflows.planned.PlannedFailoverWorkflowImpl;
import io.temporal.worker.Worker;
import java.time.Clock;
import java.util.List;

/**
 * What the worker hosts: every workflow implementation and every activity implementation. A new
 * workflow (the emergency failover, say) is added to {@link #WORKFLOWS} and nowhere else.
 */
public final class Registrations {
  public static final List<Class<?>> WORKFLOWS = List.of(
      PlannedFailoverWorkflowImpl.class,
      EmergencyFailoverWorkflowImpl.class);

  private Registrations() {}

  /**
   * The activity implementations, wired to the cluster the worker runs against; {@code
   * sidecarToken} (null: none) is what the sidecar activity presents to the sidecars.
   */
  public static List<Object> activities(KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken) {
    return List.of(
        new MysqlActivitiesImpl(new SecretCredentialsProvider(kubernetes, clock), clock),
        new KubernetesActivitiesImpl(kubernetes, clock),
        new DragonflyActivitiesImpl(StoreConnections.warmedUp(), clock),
        new SidecarActivitiesImpl(clock, sidecarToken),
        new HookActivitiesImpl(kubernetes));
  }

  public static void register(Worker worker, KubernetesClient kubernetes, Clock clock, SharedToken sidecarToken) {
    worker.registerWorkflowImplementationTypes(WORKFLOWS.toArray(Class<?>[]::new));
    worker.registerActivitiesImplementations(activities(kubernetes, clock, sidecarToken).toArray());
  }
}
