package io.shipstream.failover.activities.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.testsupport.MockCluster;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watcher's replicas as the worker lists them: the chart's pods, each at its own address. */
class PodWatcherReplicasTest {
  private static final Map<String, String> LABELS =
      Map.of("app.kubernetes.io/name", "failover", "app.kubernetes.io/component", "watcher");
  private static final String SELECTOR = "app.kubernetes.io/name=failover, app.kubernetes.io/component=watcher";
  private final MockCluster cluster = MockCluster.start();

  @AfterEach
  void stop() {
    cluster.close();
  }

  private void pod(String name, Map<String, String> labels, String phase, String ip, boolean started) {
    Pod pod = new PodBuilder().withNewMetadata().withName(name).withNamespace("ops").withLabels(labels).endMetadata()
        .withNewSpec().addNewContainer().withName("watcher").addNewPort().withName("http").withContainerPort(8080)
        .endPort().addNewPort().withName("https").withContainerPort(8443).endPort().endContainer().endSpec()
        .withNewStatus().withPhase(phase).withPodIP(ip)
        .withContainerStatuses(new ContainerStatusBuilder().withName("watcher").withRestartCount(0)
            .withNewState().withNewWaiting().withReason(started ? null : "ContainerCreating").endWaiting().endState()
            .build())
        .endStatus().build();
    if (started) {
      pod.getStatus().getContainerStatuses().get(0).getState().setWaiting(null);
      pod.getStatus().getContainerStatuses().get(0).getState().setRunning(
          new io.fabric8.kubernetes.api.model.ContainerStateRunning());
    }
    cluster.client().pods().inNamespace("ops").resource(pod).create();
  }

  private PodWatcherReplicas replicas(String tlsName) {
    return new PodWatcherReplicas(cluster.client(), "ops", SELECTOR, ControlPlaneTls.none(), tlsName);
  }

  @Test
  void everyRunningWatcherPodIsReadAtItsOwnAddressAndNamedPort() throws IOException {
    pod("watcher-a", LABELS, "Running", "10.0.0.7", true);
    pod("watcher-b", LABELS, "Running", "fd00::8", true);
    pod("worker-a", Map.of("app.kubernetes.io/name", "failover"), "Running", "10.0.0.9", true);
    // Not started yet: it has answered nothing, so it renews nothing.
    pod("watcher-c", LABELS, "Pending", null, false);

    assertThat(replicas(null).list().replicas()).containsExactlyInAnyOrder(
        new WatcherReplicas.Replica("watcher-a", "http://10.0.0.7:8080"),
        new WatcherReplicas.Replica("watcher-b", "http://[fd00::8]:8080"));
    assertThat(replicas("failover-watcher.ops.svc").list().replicas()).extracting(WatcherReplicas.Replica::baseUrl)
        .containsExactlyInAnyOrder("https://10.0.0.7:8443", "https://[fd00::8]:8443");
  }

  @Test
  void aWatcherPodThatRanAndIsNotRunningNowCannotBeReadSoTheListFails() {
    pod("watcher-a", LABELS, "Running", "10.0.0.7", true);
    pod("watcher-b", LABELS, "Failed", "10.0.0.8", true);

    assertThatThrownBy(() -> replicas(null).list()).isInstanceOf(IOException.class)
        .hasMessageContaining("watcher pod watcher-b is Failed").hasMessageContaining("cannot be read");
  }

  @Test
  void badSelectorsAreRefused() {
    assertThatThrownBy(() -> PodWatcherReplicas.labels("app in (a,b)")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only equality selectors");
    assertThatThrownBy(() -> PodWatcherReplicas.labels(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThat(PodWatcherReplicas.labels("a=b,c=d")).containsExactly(Map.entry("a", "b"), Map.entry("c", "d"));
  }
}
