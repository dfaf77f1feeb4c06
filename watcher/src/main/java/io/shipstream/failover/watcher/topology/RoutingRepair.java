package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.DnsRecords;
import io.shipstream.failover.kube.NodeTaints;
import io.shipstream.failover.kube.Owners;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.RoleLabel;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.SiteObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Keeps what the group owns in Kubernetes true between failovers, from the recorded active site
 * and the latest polls: the role label on every site's pods ({@code primary} on the active site's,
 * {@code fenced} on a site a DBA fenced, {@code replica} on a replica that answers and replicates,
 * {@code standby} on any other), the
 * {@code mysql-<group>-primary} and {@code mysql-<group>-replicas} Services, the DNSEndpoint, and
 * the per-group NoExecute taint on every node of a site but the active one. The same code the
 * failover activities run (the kube module), so the two never disagree on what "right" is.
 *
 * <p>No node is tainted while any of the group's own MySQL pods would not tolerate the taint
 * ({@link NodeTaints}, the failover's rule too): that is reported instead.
 */
public final class RoutingRepair {
  static final String STANDBY = "standby";

  /** What one pass found and did. */
  public record Outcome(List<String> repairs, List<String> problems) {
    boolean repaired() {
      return !repairs.isEmpty();
    }
  }

  private final SiteRoles roles;
  private final DnsRecords dns;
  private final NodeTaints taints;

  public RoutingRepair(KubernetesClient client, Function<GroupRef, Optional<MysqlFailoverGroup>> groups) {
    Owners owners = group -> groups.apply(group).map(Owners::reference);
    this.roles = new SiteRoles(client, owners);
    this.dns = new DnsRecords(client, owners);
    this.taints = new NodeTaints(client);
  }

  /** One pass over everything the group owns; throws when the API server refuses. */
  public Outcome repair(GroupRef group, GroupConfig config, String activeSite, Map<String, SiteObservation> sites) {
    return repair(group, config, activeSite, List.of(), sites);
  }

  /** As {@link #repair(GroupRef, GroupConfig, String, Map)}, with the sites a DBA fenced (null: none). */
  public Outcome repair(GroupRef group, GroupConfig config, String activeSite, List<String> fenced,
      Map<String, SiteObservation> sites) {
    List<String> repairs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Pod> groupPods = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      String role = role(site, activeSite, fenced, sites.get(site.name()));
      // One list of the site's pods serves both the labels and the toleration check.
      List<Pod> pods = roles.pods(group, site);
      int changed = roles.setRole(group, pods, role);
      if (changed > 0) {
        repairs.add(changed + " pod(s) of " + site.name() + " labelled role=" + role);
      }
      groupPods.addAll(pods);
    }
    if (roles.ensureService(group, SiteRoles.serviceName(group), SiteRoles.PRIMARY)) {
      repairs.add("Service " + SiteRoles.serviceName(group) + " created");
    }
    if (roles.ensureService(group, SiteRoles.replicasServiceName(group), SiteRoles.REPLICA)) {
      repairs.add("Service " + SiteRoles.replicasServiceName(group) + " created");
    }
    SiteSpec active = config.site(activeSite).orElse(null);
    if (active != null && dns.update(group, config.dnsHostname(), active.lbIP(), config.dnsTtl())) {
      repairs.add("DNSEndpoint " + DnsRecords.endpointName(group) + " pointed at " + active.lbIP());
    }
    NodeTaints.Placement placement = taints.apply(group, config.sites(), activeSite, groupPods);
    if (!placement.changed().isEmpty()) {
      repairs.add("taint " + NodeTaints.taintKey(group) + " set right on node(s) "
          + String.join(", ", placement.changed()));
    }
    if (!placement.everyPodTolerates()) {
      problems.add(placement.problem(group));
    }
    return new Outcome(repairs, problems);
  }

  /** The role label a site's pods carry: only healthy replicas serve reads through the replicas Service. */
  static String role(SiteSpec site, String activeSite, SiteObservation seen) {
    return role(site, activeSite, List.of(), seen);
  }

  /**
   * As {@link #role(SiteSpec, String, SiteObservation)}; a fenced site other than the active one is
   * labelled {@code fenced}, out of the replicas Service. A fenced active site stays {@code
   * primary}: its server refuses writes, and the primary Service must lead nowhere else.
   */
  static String role(SiteSpec site, String activeSite, List<String> fenced, SiteObservation seen) {
    if (site.name().equals(activeSite)) {
      return SiteRoles.PRIMARY;
    }
    if (fenced != null && fenced.contains(site.name())) {
      return RoleLabel.FENCED;
    }
    boolean healthy = seen != null && seen.answeringNow() && seen.latest().readOnly() && seen.latest().replicating();
    return healthy ? SiteRoles.REPLICA : STANDBY;
  }
}
