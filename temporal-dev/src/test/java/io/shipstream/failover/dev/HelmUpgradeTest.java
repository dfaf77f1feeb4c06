package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code helm upgrade} from a released chart to HEAD's, with the values the user installed with:
 * every Service keeps its name, selector and ports (the sidecars' WATCHER_URL names the watcher's
 * Service and port), every Deployment and PodDisruptionBudget its selector (a Deployment's selector
 * cannot change: the upgrade would fail), and every Secret the chart made or reads (the sidecars'
 * token, the user's Temporal credentials) is still made or read under its name. HEAD may add to
 * any of them. A release's rendering is kept under {@code chart/<release>/}: {@code defaults.yaml}
 * with the chart's defaults, {@code non-defaults.yaml} with its {@code values.yaml}.
 */
class HelmUpgradeTest {
  /** Every release whose chart rendering is kept; a release adds its directory and its name here. */
  static final List<String> RELEASES = List.of("0.1.0");
  static final Path BASELINES = Path.of("src", "test", "resources", "chart");

  @Test
  void headKeepsTheNamesSelectorsAndSecretsOfEveryReleasedChart() throws IOException {
    for (String release : RELEASES) {
      Path dir = BASELINES.resolve(release);
      List<HasMetadata> head = HelmChartTest.parse(HelmChartTest.template().call());
      List<HasMetadata> headNonDefault = HelmChartTest.parse(HelmChartTest.template()
          .withValuesFile(dir.resolve("values.yaml")).call());

      assertThat(lost(released(dir, "defaults.yaml"), head)).as(release + " with the default values").isEmpty();
      assertThat(lost(released(dir, "non-defaults.yaml"), headNonDefault)).as(release + " with its values.yaml")
          .isEmpty();
    }
  }

  /**
   * At a release commit, writes HEAD's renderings as that release's baseline ({@code
   * -Dchart.release=<version>}: {@code defaults.yaml}, and {@code non-defaults.yaml} with {@link
   * HelmChartTest#NON_DEFAULT_VALUES} kept as its {@code values.yaml}); without the property it
   * records nothing. See docs/operating/upgrades.md and docs/contributing/releasing.md.
   */
  @Test
  void recordsAReleasesRenderingsWhenAsked() throws IOException {
    String release = System.getProperty("chart.release");
    org.junit.jupiter.api.Assumptions.assumeTrue(release != null && !release.isBlank(),
        "records a release's renderings only with -Dchart.release=<version>");
    Path dir = Files.createDirectories(BASELINES.resolve(release));
    Path values = Files.writeString(dir.resolve("values.yaml"), HelmChartTest.NON_DEFAULT_VALUES);
    Files.writeString(dir.resolve("defaults.yaml"), HelmChartTest.template().call());
    Files.writeString(dir.resolve("non-defaults.yaml"), HelmChartTest.template().withValuesFile(values).call());
    assertThat(lost(released(dir, "defaults.yaml"), HelmChartTest.parse(HelmChartTest.template().call())))
        .as("a rendering holds against itself").isEmpty();
  }

  /** The comparison itself: a renamed Service, a changed selector or a Secret no longer read is named. */
  @Test
  void aRenamedServiceAChangedSelectorOrADroppedSecretIsNamed() throws IOException {
    List<HasMetadata> released = released(BASELINES.resolve("0.1.0"), "non-defaults.yaml");
    List<HasMetadata> changed = new ArrayList<>();
    for (HasMetadata object : released) {
      if (object instanceof Service service && service.getMetadata().getName().endsWith("-watcher")) {
        changed.add(new ServiceBuilder(service).editMetadata().withName("failover-watcher-api").endMetadata().build());
      } else if (object instanceof Service service) {
        changed.add(new ServiceBuilder(service).editSpec().addToSelector("tier", "new").endSpec().build());
      } else if (!(object instanceof Secret)) {
        changed.add(object);
      }
    }

    assertThat(lost(released, changed)).contains(
        "Service failover-watcher: gone",
        "Service failover-worker: selector {app.kubernetes.io/component=worker, app.kubernetes.io/instance=failover, "
            + "app.kubernetes.io/name=failover} became {app.kubernetes.io/component=worker, "
            + "app.kubernetes.io/instance=failover, app.kubernetes.io/name=failover, tier=new}",
        "Secret failover-sidecar-token: no longer created");
  }

  private static List<HasMetadata> released(Path dir, String file) throws IOException {
    return HelmChartTest.parse(Files.readString(dir.resolve(file)));
  }

  /** What {@code head} lost of {@code released}'s names, selectors, ports and Secrets, one line each. */
  static List<String> lost(List<HasMetadata> released, List<HasMetadata> head) {
    List<String> lost = new ArrayList<>();
    Map<String, Service> headServices = byName(HelmChartTest.of(head, Service.class));
    for (Service service : HelmChartTest.of(released, Service.class)) {
      String name = service.getMetadata().getName();
      Service now = headServices.get(name);
      if (now == null) {
        lost.add("Service " + name + ": gone");
        continue;
      }
      same(lost, "Service " + name + ": selector", sorted(service.getSpec().getSelector()),
          sorted(now.getSpec().getSelector()));
      same(lost, "Service " + name + ": ports", ports(service), ports(now));
    }
    Map<String, Deployment> headDeployments = byName(HelmChartTest.of(head, Deployment.class));
    for (Deployment deployment : HelmChartTest.of(released, Deployment.class)) {
      String name = deployment.getMetadata().getName();
      Deployment now = headDeployments.get(name);
      if (now == null) {
        lost.add("Deployment " + name + ": gone");
        continue;
      }
      same(lost, "Deployment " + name + ": selector", deployment.getSpec().getSelector(), now.getSpec().getSelector());
    }
    Map<String, PodDisruptionBudget> headBudgets = byName(HelmChartTest.of(head, PodDisruptionBudget.class));
    for (PodDisruptionBudget budget : HelmChartTest.of(released, PodDisruptionBudget.class)) {
      PodDisruptionBudget now = headBudgets.get(budget.getMetadata().getName());
      if (now == null) {
        lost.add("PodDisruptionBudget " + budget.getMetadata().getName() + ": gone");
      } else {
        same(lost, "PodDisruptionBudget " + budget.getMetadata().getName() + ": selector",
            budget.getSpec().getSelector(), now.getSpec().getSelector());
      }
    }
    TreeSet<String> created = new TreeSet<>(byName(HelmChartTest.of(head, Secret.class)).keySet());
    for (String secret : byName(HelmChartTest.of(released, Secret.class)).keySet()) {
      if (!created.contains(secret)) {
        lost.add("Secret " + secret + ": no longer created");
      }
    }
    Map<String, TreeSet<String>> headReads = secretsRead(head);
    secretsRead(released).forEach((deployment, secrets) -> {
      for (String secret : secrets) {
        if (!headReads.getOrDefault(deployment, new TreeSet<>()).contains(secret)) {
          lost.add("Deployment " + deployment + ": no longer reads Secret " + secret);
        }
      }
    });
    return lost;
  }

  private static void same(List<String> lost, String what, Object released, Object head) {
    if (!Objects.equals(released, head)) {
      lost.add(what + " " + released + " became " + head);
    }
  }

  private static Map<String, String> sorted(Map<String, String> labels) {
    return labels == null ? null : new TreeMap<>(labels);
  }

  private static Map<String, String> ports(Service service) {
    Map<String, String> ports = new TreeMap<>();
    for (ServicePort port : service.getSpec().getPorts()) {
      var target = port.getTargetPort();
      ports.put(port.getName(),
          port.getPort() + "->" + (target.getStrVal() != null ? target.getStrVal() : target.getIntVal()));
    }
    return ports;
  }

  /** Per Deployment, every Secret its pods mount or take a variable from. */
  private static Map<String, TreeSet<String>> secretsRead(List<HasMetadata> rendering) {
    Map<String, TreeSet<String>> reads = new TreeMap<>();
    for (Deployment deployment : HelmChartTest.of(rendering, Deployment.class)) {
      TreeSet<String> secrets = new TreeSet<>();
      PodSpec pod = deployment.getSpec().getTemplate().getSpec();
      for (Volume volume : pod.getVolumes() == null ? List.<Volume>of() : pod.getVolumes()) {
        if (volume.getSecret() != null) {
          secrets.add(volume.getSecret().getSecretName());
        }
        if (volume.getProjected() != null) {
          volume.getProjected().getSources().stream().filter(s -> s.getSecret() != null)
              .forEach(s -> secrets.add(s.getSecret().getName()));
        }
      }
      pod.getContainers().forEach(container -> {
        for (EnvVar variable : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
          if (variable.getValueFrom() != null && variable.getValueFrom().getSecretKeyRef() != null) {
            secrets.add(variable.getValueFrom().getSecretKeyRef().getName());
          }
        }
        for (EnvFromSource from : container.getEnvFrom() == null ? List.<EnvFromSource>of() : container.getEnvFrom()) {
          if (from.getSecretRef() != null) {
            secrets.add(from.getSecretRef().getName());
          }
        }
      });
      reads.put(deployment.getMetadata().getName(), secrets);
    }
    return reads;
  }

  private static <T extends HasMetadata> Map<String, T> byName(List<T> objects) {
    Map<String, T> out = new TreeMap<>();
    objects.forEach(o -> out.put(o.getMetadata().getName(), o));
    return out;
  }
}
