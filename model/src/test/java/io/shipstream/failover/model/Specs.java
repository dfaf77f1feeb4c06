package io.shipstream.failover.model;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;
import java.util.Map;

/** Small specs for tests: only what a user must write, everything else left to the defaults. */
public final class Specs {
  private Specs() {}

  public static SiteSpec site(String name, String role) {
    return new SiteSpec(name, role, null, new SiteSpec.Endpoint(name + ".db", null), null,
        Map.of("topology.kubernetes.io/zone", name), null, null, null);
  }

  public static MysqlFailoverGroupSpec minimal() {
    return withSites(List.of(site("iad", null), site("pdx", null)));
  }

  public static MysqlFailoverGroupSpec withSites(List<SiteSpec> sites) {
    return new MysqlFailoverGroupSpec(sites, null, null, null, null, null, null, null, null, null, null, null);
  }
}
