package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static io.shipstream.failover.watcher.topology.Fixtures.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The role label each site's pods get from the routing repair: who serves writes, who serves reads. */
class RoutingRoleTest {
  private static final GroupConfig CONFIG = Fixtures.config("0s", List.of());

  private static SiteSpec site(String name) {
    return CONFIG.site(name).orElseThrow();
  }

  private static SiteObservation seen(SiteState state, Probe p) {
    return new SiteObservation(state, p, p);
  }

  @Test
  void theActiveSiteIsPrimaryAHealthyReplicaServesReadsAnyOtherStandsBy() {
    assertThat(RoutingRepair.role(site("iad"), "iad", seen(SiteState.WRITABLE, writable("iad", "0-1-1"))))
        .isEqualTo("primary");
    assertThat(RoutingRepair.role(site("pdx"), "iad", seen(SiteState.READ_ONLY, replica("pdx", "0-1-1"))))
        .isEqualTo("replica");
    assertThat(RoutingRepair.role(site("pdx"), "iad", seen(SiteState.UNREACHABLE, dead("pdx"))))
        .isEqualTo("standby");
  }

  @Test
  void aFencedReplicaLeavesTheReplicasServiceAndAFencedActiveSiteKeepsThePrimaryService() {
    SiteObservation healthy = seen(SiteState.READ_ONLY, replica("pdx", "0-1-1"));

    assertThat(RoutingRepair.role(site("pdx"), "iad", List.of("pdx"), healthy)).isEqualTo("fenced");
    assertThat(RoutingRepair.role(site("pdx"), "iad", List.of("dr"), healthy)).isEqualTo("replica");
    assertThat(RoutingRepair.role(site("iad"), "iad", List.of("iad"),
        seen(SiteState.READ_ONLY, replica("iad", "0-1-1")))).as("writes fail there rather than go elsewhere")
        .isEqualTo("primary");
    assertThat(RoutingRepair.role(site("pdx"), "iad", null, healthy)).isEqualTo("replica");
  }
}
