package io.shipstream.failover.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publisher as the runbooks use it, through local activities: while a status write is in
 * flight a newer status replaces the one waiting, Events are never dropped and those that waited
 * go in one call, and flush returns only once everything is written.
 */
class StatusPublisherTest {
  private static final GroupRef GROUP = new GroupRef("shop", "orders");

  @WorkflowInterface
  public interface Publishing {
    @WorkflowMethod
    void publish();
  }

  /** Publishes three phases and three Events in one go, as a workflow task of the runbook does. */
  public static class PublishingImpl implements Publishing {
    @Override
    public void publish() {
      StatusPublisher publisher =
          new StatusPublisher(ActivityStubs.kubernetesLocal(), ActivityStubs.kubernetes(), GROUP,
              new WorkflowRef(WorkflowTypes.PLANNED_FAILOVER, "wf", "run"));
      publisher.status(phase("Pending"));
      publisher.event(Events.PLANNED_FAILOVER_STARTED, "requested");
      publisher.status(phase("Validating"));
      publisher.event(Events.PLANNED_FAILOVER_DEFERRED, "two");
      publisher.status(phase("Draining"));
      publisher.event(Events.PLANNED_FAILOVER_DRAINING, "three");
      publisher.flush();
    }
  }

  /** The fake resource, with the first status write and the first Event write held until released. */
  static final class SlowFirstWrites extends FakeKubernetes {
    final CountDownLatch release = new CountDownLatch(1);
    final List<Integer> eventBatches = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void writePlannedFailoverStatus(GroupRef group, PlannedFailoverStatus planned, WorkflowRef workflow) {
      if (statusHistory.isEmpty()) {
        await();
      }
      super.writePlannedFailoverStatus(group, planned, workflow);
    }

    @Override
    public void emitEvents(GroupRef group, List<KubernetesActivities.EventNote> notes) {
      if (eventBatches.isEmpty()) {
        await();
      }
      eventBatches.add(notes.size());
      super.emitEvents(group, notes);
    }

    private void await() {
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private TestWorkflowEnvironment env;
  private final SlowFirstWrites k8s = new SlowFirstWrites();

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.FAILOVER);
    worker.registerWorkflowImplementationTypes(PublishingImpl.class);
    worker.registerActivitiesImplementations(k8s);
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aStatusThatWaitedIsReplacedByANewerOneAndEventsThatWaitedGoInOneCall() throws Exception {
    var run = io.temporal.client.WorkflowClient.execute(stub()::publish);
    // Everything after the first status and the first Event queues behind them.
    Thread.sleep(300);
    k8s.release.countDown();
    run.get(20, TimeUnit.SECONDS);

    assertThat(k8s.statusHistory).extracting(PlannedFailoverStatus::phase).containsExactly("Pending", "Draining");
    assertThat(k8s.status.plannedFailover().phase()).isEqualTo("Draining");
    assertThat(k8s.eventReasons()).containsExactly("PlannedFailoverStarted", "PlannedFailoverDeferred",
        "PlannedFailoverDraining");
    assertThat(k8s.eventBatches).containsExactly(1, 2);
    WorkflowReplayer.replayWorkflowExecution(env.getWorkflowClient().fetchHistory("publishing"), PublishingImpl.class);
  }

  private Publishing stub() {
    return env.getWorkflowClient().newWorkflowStub(Publishing.class, WorkflowOptions.newBuilder()
        .setWorkflowId("publishing").setTaskQueue(TaskQueues.FAILOVER).build());
  }

  private static PlannedFailoverStatus phase(String phase) {
    return new PlannedFailoverStatus(phase, "pdx", "iad", null, null, "2026-11-22T12:00:00Z", null, null, null, null,
        null, null, null);
  }
}
