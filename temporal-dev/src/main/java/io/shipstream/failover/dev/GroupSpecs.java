package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.PlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SidecarSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;

/**
 * A group's spec, or one of its sites, with one part changed and the rest as it was: what the
 * stack, the scenarios and the tests write back as {@code kubectl edit} would.
 */
public final class GroupSpecs {
  private GroupSpecs() {}

  public static MysqlFailoverGroupSpec withSites(MysqlFailoverGroupSpec s, List<SiteSpec> sites) {
    return new MysqlFailoverGroupSpec(sites, s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.semiSync());
  }

  public static MysqlFailoverGroupSpec withPlannedFailover(MysqlFailoverGroupSpec s, PlannedFailoverSpec planned) {
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), planned, s.splitBrainPolicy(),
        s.dns(), s.sidecar(), s.dragonfly(), s.semiSync());
  }

  public static MysqlFailoverGroupSpec withSidecar(MysqlFailoverGroupSpec s, SidecarSpec sidecar) {
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), sidecar, s.dragonfly(), s.semiSync());
  }

  public static MysqlFailoverGroupSpec withDragonfly(MysqlFailoverGroupSpec s, DragonflySpec dragonfly) {
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), dragonfly, s.semiSync());
  }

  public static MysqlFailoverGroupSpec withSemiSync(MysqlFailoverGroupSpec s, MysqlFailoverGroupSpec.SemiSyncSpec semi) {
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), semi);
  }

  /** The site with its MySQL endpoint, sidecar and store endpoint replaced. */
  public static SiteSpec withEndpoints(SiteSpec s, SiteSpec.Endpoint mysql, SiteSpec.Sidecar sidecar,
      SiteSpec.Endpoint dragonfly) {
    return new SiteSpec(s.name(), s.role(), s.zone(), mysql, s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        sidecar, dragonfly);
  }
}
