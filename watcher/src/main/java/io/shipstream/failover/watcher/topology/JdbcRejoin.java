package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsProvider;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.SourceChange;
import io.shipstream.failover.mysql.Timeouts;
import java.time.Duration;

/**
 * Points a returning old primary at the active one with GTID auto-positioning, through the same
 * change of source the failover activities use ({@link SourceChange}): on MariaDB the server's
 * slave position is first moved to its own newest GTID of every domain, as read from the server at
 * that moment, so it asks the source for exactly what it lacks; MySQL's auto-positioning sends
 * {@code gtid_executed} by itself.
 *
 * <p>The replication login is {@code replicationUsername}/{@code replicationPassword} of the
 * group's Secret, falling back to {@code username}/{@code password}, the admin login for the
 * statements. Neither is ever logged: the driver sends them as escaped literals and its messages
 * do not echo them.
 */
public final class JdbcRejoin implements OldPrimaryRecovery.Rejoiner {
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));

  private final CredentialsProvider logins;
  private final MysqlConnections connections = MysqlConnections.unpooled();

  public JdbcRejoin(CredentialsProvider logins) {
    this.logins = logins;
  }

  /** {@code siteGtid} is what the monitor last saw; the change of source reads the server's own positions. */
  @Override
  public void rejoin(GroupRef group, GroupConfig config, SiteSpec site, SiteSpec source, String siteGtid)
      throws MysqlException {
    Credentials login = logins.credentials(group, config.credentialsSecret());
    try (MysqlSession session = MysqlSession.open(connections, SiteProber.address(site), login, TIMEOUTS)) {
      SourceChange.replicateFrom(session, SiteProber.address(source), login, login.tls().channelFor(site.name()));
    }
  }
}
