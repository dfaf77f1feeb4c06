package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {
  @Test
  void threadsAreDaemonsNumberedInTheOrderTheyAreMade() {
    ThreadFactory threads = DaemonThreads.named("topology-poll");
    Thread first = threads.newThread(() -> {});
    Thread second = threads.newThread(() -> {});
    assertThat(first.isDaemon()).isTrue();
    assertThat(second.isDaemon()).isTrue();
    assertThat(first.getName()).isEqualTo("topology-poll-1");
    assertThat(second.getName()).isEqualTo("topology-poll-2");
  }
}
