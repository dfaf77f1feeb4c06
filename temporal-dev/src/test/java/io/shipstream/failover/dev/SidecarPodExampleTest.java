package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.testsupport.MockCluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart README's pod example for the sidecar, parsed as the pod spec a user copies: its probes
 * are the ones the dev stack's pods carry and its kubelet stand-in runs ({@link
 * MockCluster#sidecarContainer}, from {@link SidecarLiveness.Probe#CHART}), so the restart bound
 * the failover computes from a pod is the one the docs promise.
 */
class SidecarPodExampleTest {

  @Test
  void theReadmesSidecarProbesAreTheChartsSettings() throws Exception {
    Container documented = readmeExample().getContainers().stream()
        .filter(c -> SidecarLiveness.CONTAINER.equals(c.getName())).findFirst().orElseThrow();
    Container dev = MockCluster.sidecarContainer();

    assertThat(documented.getLivenessProbe()).isEqualTo(dev.getLivenessProbe());
    assertThat(documented.getStartupProbe()).isEqualTo(dev.getStartupProbe());
    assertThat(documented.getPorts()).singleElement().satisfies(port -> {
      assertThat(port.getName()).isEqualTo(SidecarLiveness.PORT_NAME);
      assertThat(port.getContainerPort()).isEqualTo(SidecarLiveness.DEFAULT_PORT);
    });
    assertThat(documented.getLivenessProbe().getHttpGet().getPath()).isEqualTo(SidecarLiveness.HEALTH_PATH);
    assertThat(documented.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo(SidecarLiveness.PORT_NAME);

    SidecarLiveness.Probe probe = SidecarLiveness.Probe.ofPodSpec(documented.getLivenessProbe().getPeriodSeconds(),
        documented.getLivenessProbe().getTimeoutSeconds(), documented.getLivenessProbe().getFailureThreshold(),
        documented.getLivenessProbe().getTerminationGracePeriodSeconds(), null);
    assertThat(probe).isEqualTo(SidecarLiveness.Probe.CHART);
    // The numbers the README gives: restarted within 8 s of /health failing, fenced within 46 s of
    // the last tick with the spec's default interval.
    assertThat(probe.restartWithin()).isEqualTo(Duration.ofSeconds(8));
    assertThat(SidecarLiveness.healthBound(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(15));
    assertThat(SidecarLiveness.BOOT_FENCE_BOUND).isEqualTo(Duration.ofSeconds(23));
    assertThat(SidecarLiveness.restartAndFenceBound(probe, Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(46));
  }

  /** The yaml block of the section "The sidecar, in your MySQL pods", as the pod spec it is part of. */
  private static PodSpec readmeExample() throws Exception {
    String readme = Files.readString(HelmChartTest.CHART.resolve("README.md"));
    String section = readme.substring(readme.indexOf("## The sidecar, in your MySQL pods"));
    Matcher block = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(section);
    assertThat(block.find()).as("the section has a yaml example").isTrue();
    String dedented = block.group(1).lines().map(line -> line.length() >= 6 ? line.substring(6) : line.strip())
        .reduce("", (a, b) -> a + b + "\n");
    return Serialization.unmarshal(dedented, PodSpec.class);
  }
}
