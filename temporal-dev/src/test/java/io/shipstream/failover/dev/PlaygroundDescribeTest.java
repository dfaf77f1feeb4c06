package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The Temporal CLI command the playground prints for following a failover in the console. */
class PlaygroundDescribeTest {
  @Test
  void describesTheGroupsWorkflowOnThePlaygroundsServer() {
    assertThat(Playground.describeCommand("127.0.0.1:7233", "mysqlfailovergroup/shop/orders")).isEqualTo(
        "temporal workflow describe --address 127.0.0.1:7233 --namespace default"
            + " --workflow-id mysqlfailovergroup/shop/orders");
  }
}
