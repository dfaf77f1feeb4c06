package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.model.topology.GuardRestart.Reading;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The liveness probe that restarts a site's hung sidecar, read from the site's pods: the
 * container whose liveness probe is an HTTP GET of {@link #HEALTH_PATH}. The emergency failover
 * waits as long as that probe takes to restart a hung sidecar ({@link GuardRestart}), and the
 * watcher reports a sidecar without one. One reader for both, so they never disagree.
 */
public final class SidecarProbes {
  /** The sidecar's health path, which fails when its fencing loop stops completing ticks. */
  public static final String HEALTH_PATH = SidecarLiveness.HEALTH_PATH;

  private final SiteRoles roles;

  public SidecarProbes(KubernetesClient client) {
    // Only reads: no object is created, so no owner is needed.
    this.roles = new SiteRoles(client, group -> Optional.empty());
  }

  /** What the site's pods say of its sidecar's liveness probe; an API error is an UNKNOWN reading. */
  public Reading read(GroupRef group, SiteSpec site) {
    if (site.podSelector() == null || site.podSelector().isEmpty()) {
      return Reading.unknown("site " + site.name() + " has no podSelector");
    }
    List<Pod> pods;
    try {
      pods = roles.pods(group, site);
    } catch (KubernetesClientException e) {
      return Reading.unknown("the pods of site " + site.name() + " could not be read: " + e.getMessage());
    }
    return of(site.name(), pods);
  }

  /**
   * The weakest probe of {@code pods} (the one whose restart takes longest), NO_PROBE when one of
   * them has none on {@link #HEALTH_PATH}, UNKNOWN when there are no pods.
   */
  public static Reading of(String site, List<Pod> pods) {
    if (pods.isEmpty()) {
      return Reading.unknown("the podSelector of site " + site + " matches no pod");
    }
    Reading weakest = null;
    for (Pod pod : pods) {
      Optional<SidecarLiveness.Probe> probe = probe(pod);
      if (probe.isEmpty()) {
        return Reading.noProbe("pod " + pod.getMetadata().getName() + " of site " + site
            + " has no container with a liveness probe on " + HEALTH_PATH);
      }
      if (weakest == null || probe.get().restartWithin().compareTo(weakest.probe().restartWithin()) > 0) {
        weakest = Reading.probed(pod.getMetadata().getName(), probe.get());
      }
    }
    return weakest;
  }

  /** The liveness probe on {@link #HEALTH_PATH} of one of the pod's containers, Kubernetes' defaults filled in. */
  public static Optional<SidecarLiveness.Probe> probe(Pod pod) {
    return probe(pod, Container::getLivenessProbe);
  }

  /**
   * The probe {@code which} picks (liveness, startup) on {@link #HEALTH_PATH} of one of the pod's
   * containers, Kubernetes' defaults filled in: the one reading of a sidecar's probes, for the
   * failover's wait, the watcher's check and the dev stack's kubelet stand-in.
   */
  public static Optional<SidecarLiveness.Probe> probe(Pod pod, Function<Container, Probe> which) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return Optional.empty();
    }
    for (Container container : pod.getSpec().getContainers()) {
      Probe probe = which.apply(container);
      if (probe == null || probe.getHttpGet() == null || !HEALTH_PATH.equals(probe.getHttpGet().getPath())) {
        continue;
      }
      return Optional.of(SidecarLiveness.Probe.ofPodSpec(positive(probe.getPeriodSeconds()),
          positive(probe.getTimeoutSeconds()), positive(probe.getFailureThreshold()),
          probe.getTerminationGracePeriodSeconds(), pod.getSpec().getTerminationGracePeriodSeconds()));
    }
    return Optional.empty();
  }

  /** A value the API server would default: absent or not positive. */
  private static Integer positive(Integer value) {
    return value == null || value <= 0 ? null : value;
  }
}
