package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MockCluster;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The kubelet stand-in against a stub {@code /health} and pods on the mock API server: it runs the
 * probes the pod's sidecar container declares, restarts after that many failures in a row (the
 * liveness probe's, or the startup probe's before it passed), and leaves alone a pod with none.
 */
class DevKubeletTest {
  private final MockCluster cluster = MockCluster.start();
  private final DevKubelet kubelet = new DevKubelet(cluster.client(), MockCluster.NAMESPACE);
  private final HttpServer health;
  private volatile int code = 200;
  private final AtomicInteger probed = new AtomicInteger();

  DevKubeletTest() throws Exception {
    health = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    health.createContext(SidecarLiveness.HEALTH_PATH, exchange -> {
      int answer = code;
      byte[] body = (answer == 200 ? "ok\n" : "fencing loop stalled: test\n").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(answer, body.length);
      probed.incrementAndGet();
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    health.start();
  }

  @AfterEach
  void stop() {
    kubelet.close();
    health.stop(0);
    cluster.close();
  }

  @Test
  void aSidecarWhoseHealthFailsThresholdTimesInARowIsRestartedOnce() {
    cluster.createPod(DevKubelet.podOf("iad"), MockCluster.podLabels("iad"));
    assertThat(kubelet.probe(DevKubelet.podOf("iad"))).contains(SidecarLiveness.Probe.CHART);
    assertThat(kubelet.startupProbe(DevKubelet.podOf("iad"))).contains(SidecarLiveness.Probe.CHART_STARTUP);
    AtomicInteger restarts = new AtomicInteger();
    assertThat(kubelet.watch("iad", DevKubelet.podOf("iad"), target(() -> health.getAddress().getPort(), () -> {
      restarts.incrementAndGet();
      code = 200;
    }))).isTrue();
    // The startup probe passes on its first attempt; from then on the liveness probe runs.
    while (probed.get() == 0) {
      Playground.sleep(10);
    }

    code = 503;
    DevKubelet.Restart restart = kubelet.awaitRestart("iad", 1, Duration.ofSeconds(30));

    assertThat(restart.reason()).isEqualTo("liveness: HTTP 503: fencing loop stalled: test");
    assertThat(restart.firstFailure()).isBefore(restart.restartedAt());
    Playground.sleep(SidecarLiveness.Probe.CHART.period().multipliedBy(2).toMillis());
    assertThat(restarts).hasValue(1);
    assertThat(kubelet.restarts("iad")).hasSize(1);
  }

  @Test
  void aSidecarThatNeverStartsIsRestartedByItsStartupProbe() {
    cluster.client().pods().inNamespace(MockCluster.NAMESPACE).resource(new PodBuilder()
        .withNewMetadata().withName(DevKubelet.podOf("pdx")).withNamespace(MockCluster.NAMESPACE).endMetadata()
        .withNewSpec().addToContainers(new ContainerBuilder(MockCluster.sidecarContainer())
            .editStartupProbe().withPeriodSeconds(1).withFailureThreshold(2).endStartupProbe().build())
        .endSpec().build()).create();
    int nothingListens = FreePorts.next();
    AtomicInteger port = new AtomicInteger(nothingListens);
    kubelet.watch("pdx", DevKubelet.podOf("pdx"), target(port::get, () -> port.set(health.getAddress().getPort())));

    DevKubelet.Restart restart = kubelet.awaitRestart("pdx", 1, Duration.ofSeconds(30));

    assertThat(restart.reason()).startsWith("startup: ConnectException");
  }

  @Test
  void aPodWithoutALivenessProbeOnHealthIsNeverProbed() {
    cluster.client().pods().inNamespace(MockCluster.NAMESPACE).resource(new PodBuilder()
        .withNewMetadata().withName(DevKubelet.podOf("dr")).withNamespace(MockCluster.NAMESPACE)
        .withLabels(Map.of("site", "dr")).endMetadata()
        .withNewSpec().addNewContainer().withName(SidecarLiveness.CONTAINER).withNewLivenessProbe().withNewHttpGet()
        .withPath("/metrics").withPort(new IntOrString(SidecarLiveness.PORT_NAME)).endHttpGet().endLivenessProbe()
        .endContainer().endSpec().build()).create();

    assertThat(kubelet.probe(DevKubelet.podOf("dr"))).isEmpty();
    assertThat(kubelet.watch("dr", DevKubelet.podOf("dr"), target(() -> 1, () -> {}))).isFalse();
    assertThat(kubelet.probe("no-such-pod")).isEmpty();
  }

  private static DevKubelet.Target target(java.util.function.IntSupplier port, Runnable restart) {
    return new DevKubelet.Target() {
      @Override
      public int port() {
        return port.getAsInt();
      }

      @Override
      public void restart() {
        restart.run();
      }
    };
  }
}
