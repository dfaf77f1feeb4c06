package io.shipstream.failover.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.topology.GuardRestart.Basis;
import io.shipstream.failover.model.topology.GuardRestart.Reading;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a site's pods say of the liveness probe that restarts its hung sidecar. */
class SidecarProbesTest {

  private static Probe health(Integer period, Integer timeout, Integer failures, Long grace) {
    return new ProbeBuilder().withNewHttpGet().withPath("/health").withNewPort(8080).endHttpGet()
        .withPeriodSeconds(period).withTimeoutSeconds(timeout).withFailureThreshold(failures)
        .withTerminationGracePeriodSeconds(grace).build();
  }

  private static Pod pod(String name, Long podGrace, Probe sidecarProbe) {
    return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withTerminationGracePeriodSeconds(podGrace)
        .addNewContainer().withName("mysql").withLivenessProbe(new ProbeBuilder().withNewTcpSocket()
            .withNewPort(3306).endTcpSocket().build())
        .endContainer()
        .addNewContainer().withName("sidecar").withLivenessProbe(sidecarProbe).endContainer()
        .endSpec().build();
  }

  @Test
  void theSidecarsProbeIsReadWithItsOwnTerminationGrace() {
    Reading reading = SidecarProbes.of("iad", List.of(pod("mysql-iad-0", 300L, health(2, 1, 3, 1L))));

    assertThat(reading.basis()).isEqualTo(Basis.PROBED);
    assertThat(reading.pod()).isEqualTo("mysql-iad-0");
    assertThat(reading.probe()).isEqualTo(SidecarLiveness.Probe.CHART);
  }

  @Test
  void withoutAProbeLevelGraceThePodsGraceCountsAndKubernetesDefaultsFillTheRest() {
    Reading reading = SidecarProbes.of("iad", List.of(pod("mysql-iad-0", 45L, health(null, null, null, null))));

    assertThat(reading.probe()).isEqualTo(SidecarLiveness.Probe.ofPodSpec(10, 1, 3, null, 45L));
    Reading noGrace = SidecarProbes.of("iad", List.of(pod("mysql-iad-0", null, health(5, 2, 2, null))));
    assertThat(noGrace.probe()).isEqualTo(SidecarLiveness.Probe.ofPodSpec(5, 2, 2, null, 30L));
  }

  @Test
  void aPodWithoutAProbeOnHealthIsNoProbeEvenBesideAProbedOne() {
    // The mysql container's TCP probe does not restart the sidecar.
    Reading reading = SidecarProbes.of("iad", List.of(pod("mysql-iad-0", 30L, health(2, 1, 3, 1L)),
        pod("mysql-iad-1", 30L, null)));

    assertThat(reading.basis()).isEqualTo(Basis.NO_PROBE);
    assertThat(reading.problem()).contains("mysql-iad-1").contains("/health");
  }

  @Test
  void ofSeveralPodsTheSlowestRestartCounts() {
    Reading reading = SidecarProbes.of("iad", List.of(pod("mysql-iad-0", 30L, health(2, 1, 3, 1L)),
        pod("mysql-iad-1", 30L, health(10, 1, 3, 1L))));

    assertThat(reading.pod()).isEqualTo("mysql-iad-1");
  }

  @Test
  void noPodIsUnknownNeverAProbe() {
    Reading reading = SidecarProbes.of("iad", List.of());

    assertThat(reading.basis()).isEqualTo(Basis.UNKNOWN);
    assertThat(reading.problem()).contains("matches no pod");
  }
}
