package io.shipstream.failover.workflows.fakes;

import static org.assertj.core.api.Assertions.assertThat;

/** What a run must have told the operator through the Kubernetes events it wrote. */
public final class EventChecks {
  private EventChecks() {}

  /** Among the events written is a Warning with {@code reason}. */
  public static void assertWarned(FakeKubernetes k8s, String reason) {
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo(reason);
    });
  }
}
