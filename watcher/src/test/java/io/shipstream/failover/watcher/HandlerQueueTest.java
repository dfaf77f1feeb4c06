package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The leader-only handlers rely on it: their tasks in order, and a closed queue drops work instead of throwing. */
class HandlerQueueTest {

  @Test
  void runsTasksInOrderOnOneNamedDaemonThread() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    try (HandlerQueue queue = new HandlerQueue("handler-queue-test")) {
      for (int i = 0; i < 5; i++) {
        int n = i;
        queue.submit(() -> ran.add(n + " on " + Thread.currentThread().getName()
            + (Thread.currentThread().isDaemon() ? " (daemon)" : "")));
      }
      queue.awaitQueued();
    }
    assertThat(ran).containsExactly("0 on handler-queue-test (daemon)", "1 on handler-queue-test (daemon)",
        "2 on handler-queue-test (daemon)", "3 on handler-queue-test (daemon)", "4 on handler-queue-test (daemon)");
  }

  @Test
  void runsAScheduledTaskAfterItsDelay() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    try (HandlerQueue queue = new HandlerQueue("handler-queue-test")) {
      long start = System.nanoTime();
      queue.schedule(ran::countDown, 50);
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(50);
    }
  }

  @Test
  void dropsWhatArrivesAfterClose() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    HandlerQueue queue = new HandlerQueue("handler-queue-test");
    queue.close();
    // The informer may still deliver after the replica stopped leading: nothing throws into it.
    queue.submit(() -> ran.add("submitted"));
    queue.schedule(() -> ran.add("scheduled"), 0);
    Thread.sleep(50);
    assertThat(ran).isEmpty();
  }
}
