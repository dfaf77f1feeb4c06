package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;

/** One site's session store (Dragonfly, Redis or Valkey), as the activities reach it. */
public record StoreTarget(GroupRef group, String site, String host, int port) {
  public static final int DEFAULT_PORT = 6379;

  /** The store of a site whose spec names one; callers check {@code site.dragonfly() != null}. */
  public static StoreTarget of(GroupRef group, SiteSpec site) {
    SiteSpec.Endpoint store = site.dragonfly();
    return new StoreTarget(group, site.name(), store.host(), store.port() == null ? DEFAULT_PORT : store.port());
  }

  @Override
  public String toString() {
    return site + " store (" + host + ":" + port + ")";
  }
}
