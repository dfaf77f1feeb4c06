package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;

/**
 * One site's MySQL as the activities reach it. Credentials are not here on purpose: they are read
 * by the activity from the group's Secret, so they never enter the workflow history. {@code
 * flavor} is the site's declared flavor ({@code mysql} or {@code mariadb}), null when the server's
 * greeting tells (and in histories written before sites could declare one).
 */
public record MysqlTarget(GroupRef group, String site, String host, int port, String credentialsSecret,
    String flavor) {

  /** A server whose flavor its greeting tells. */
  public MysqlTarget(GroupRef group, String site, String host, int port, String credentialsSecret) {
    this(group, site, host, port, credentialsSecret, null);
  }

  /** The server of a site of the group, with the group's credentials Secret and the site's declared flavor. */
  public static MysqlTarget of(GroupRef group, GroupConfig config, SiteSpec site) {
    return new MysqlTarget(group, site.name(), site.mysql().host(), GroupConfig.mysqlPort(site),
        config.credentialsSecret(), site.flavor());
  }

  @Override
  public String toString() {
    return site + " (" + host + ":" + port + ")";
  }
}
