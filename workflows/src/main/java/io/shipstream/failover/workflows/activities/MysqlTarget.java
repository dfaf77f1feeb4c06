package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;

/**
 * One site's MySQL as the activities reach it. Credentials are not here on purpose: they are read
 * by the activity from the group's Secret, so they never enter the workflow history.
 */
public record MysqlTarget(GroupRef group, String site, String host, int port, String credentialsSecret) {

  /** The server of a site of the group, with the group's credentials Secret. */
  public static MysqlTarget of(GroupRef group, GroupConfig config, SiteSpec site) {
    return new MysqlTarget(group, site.name(), site.mysql().host(), GroupConfig.mysqlPort(site),
        config.credentialsSecret());
  }

  @Override
  public String toString() {
    return site + " (" + host + ":" + port + ")";
  }
}
