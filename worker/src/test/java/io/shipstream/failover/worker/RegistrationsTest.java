package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.shipstream.failover.workflows.RegisteredTypes;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.HookActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
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

  /**
   * Every workflow, signal, query and activity type name a release registered ({@code
   * histories/<version>/types.txt} of the workflows module, written when its histories were cut)
   * is registered by this worker too: a run that release started, or its watcher, may call any.
   */
  @Test
  void everyTypeNameOfEveryReleaseIsStillRegistered() throws java.io.IOException {
    Path histories = Path.of("..", "workflows", "src", "test", "resources", "histories");
    List<Path> lists;
    try (var dirs = Files.list(histories)) {
      lists = dirs.map(d -> d.resolve("types.txt")).filter(Files::isRegularFile).sorted().toList();
    }
    Assumptions.assumeFalse(lists.isEmpty(), "no release has listed its type names under " + histories
        + " yet: nothing is released");
    try (KubernetesClient kubernetes = new KubernetesClientBuilder().build()) {
      List<Class<?>> activities = Registrations.activities(kubernetes, Clock.systemUTC(), null).stream()
          .<Class<?>>map(Object::getClass).toList();
      List<String> registered = RegisteredTypes.names(Registrations.WORKFLOWS, activities);
      for (Path list : lists) {
        assertThat(RegisteredTypes.missing(Files.readAllLines(list), registered))
            .as("names %s lists that this worker does not register",
                list)
            .isEmpty();
      }
    }
  }

  @Test
  void eachWorkerStartPollsAQueueOfItsOwn() {
    String first = Registrations.ownQueue(TaskQueues.FAILOVER);
    assertThat(first).startsWith(TaskQueues.FAILOVER + "-worker-");
    assertThat(Registrations.ownQueue(TaskQueues.FAILOVER)).as("a restarted worker").isNotEqualTo(first);
  }
}
