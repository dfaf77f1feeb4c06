package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.HookActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worker hosts an implementation of every activity interface the runbooks call, and their
 * activity types do not clash (the SDK refuses a second implementation of one type at registration).
 */
class RegistrationsTest {
  @Test
  void everyActivityInterfaceHasOneImplementationAndTheyRegisterSideBySide() {
    try (KubernetesClient kubernetes = new KubernetesClientBuilder().build();
        TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      List<Object> activities = Registrations.activities(kubernetes, Clock.systemUTC(), null);
      for (Class<?> type : List.of(MysqlActivities.class, KubernetesActivities.class, DragonflyActivities.class,
          SidecarActivities.class, HookActivities.class)) {
        assertThat(activities).as("an implementation of %s", type.getSimpleName()).filteredOn(type::isInstance)
            .hasSize(1);
      }
      Registrations.register(env.getWorkerFactory(), TaskQueues.FAILOVER, WorkerOptions.getDefaultInstance(),
          kubernetes, Clock.systemUTC(), null);
    }
  }

  @Test
  void eachWorkerStartPollsAQueueOfItsOwn() {
    String first = Registrations.ownQueue(TaskQueues.FAILOVER);
    assertThat(first).startsWith(TaskQueues.FAILOVER + "-worker-");
    assertThat(Registrations.ownQueue(TaskQueues.FAILOVER)).as("a restarted worker").isNotEqualTo(first);
  }
}
