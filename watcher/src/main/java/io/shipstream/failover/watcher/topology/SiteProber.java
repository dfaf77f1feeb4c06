package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsProvider;
import io.shipstream.failover.mysql.Fence;
import io.shipstream.failover.mysql.FlavorMismatchException;
import io.shipstream.failover.mysql.KeptSessions;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.SemiSync;
import io.shipstream.failover.mysql.ServerFlavor;
import io.shipstream.failover.mysql.ServerProbe;
import io.shipstream.failover.mysql.SourceView;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.mysql.TlsUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * Polls one site's server ({@link ServerProbe}: whether it is writable, its executed GTID set, its
 * identity and its replication threads), read-only except for {@link #fence}.
 *
 * <p>Connect and socket timeouts are {@code min(pollInterval, 2s)}: a dead server costs one
 * timeout on its own thread and never delays the polls of the other sites. Each site's polls share
 * one kept connection ({@link KeptSessions}: no handshake and login every poll), replaced on any
 * error: a server that restarted or ended the connection fails the poll's first statement at once
 * and the poll is asked again on a new connection, so no answer comes from a connection that
 * outlived a restart; a poll that timed out is not asked again. {@link #forget} closes a group's
 * connections when the monitor stops watching it. A fence opens its own connection. The login comes
 * from the group's Secret through the {@link CredentialsProvider} and is never logged.
 */
public final class SiteProber implements SiteConnector {
  static final Duration MAX_TIMEOUT = Duration.ofSeconds(2);
  /**
   * How long the fence may wait for open transactions before the application's sessions are
   * killed and it is tried again: the shortest wait the server takes, within the poll's timeout.
   */
  static final int FENCE_LOCK_WAIT_SECONDS = 1;

  private final CredentialsProvider logins;
  private final Clock clock;
  private final MysqlConnections connections = MysqlConnections.unpooled();
  private final KeptSessions<SiteKey> polls;

  /** Which kept poll connection: the site's name within its group. */
  private record SiteKey(GroupRef group, String site) {}

  public SiteProber(CredentialsProvider logins, Clock clock) {
    this(logins, clock, true);
  }

  /** {@code keepConnections} false: every poll opens its own connection (for comparison in the fleet benchmark). */
  public SiteProber(CredentialsProvider logins, Clock clock, boolean keepConnections) {
    this.logins = logins;
    this.clock = clock;
    this.polls = new KeptSessions<>(connections, keepConnections);
  }

  /** The connect and socket timeout of a poll. */
  public static Duration timeout(Duration pollInterval) {
    return pollInterval.compareTo(MAX_TIMEOUT) < 0 ? pollInterval : MAX_TIMEOUT;
  }

  @Override
  public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
    try {
      Credentials login = logins.credentials(group, config.credentialsSecret());
      return polls.use(new SiteKey(group, site.name()), address(site), login,
          Timeouts.of(timeout(config.pollInterval())), session -> {
            ServerProbe p = ServerProbe.read(session);
            return new Probe(site.name(), true, p.readOnly(), p.gtidExecuted(), p.serverId(), p.replicating(), p.lag(),
                null, clock.instant(), p.sourceServerId(), session.flavor().display())
                .withReceivedGtid(p.receivedGtidSet()).withSourceIo(p.ioState(), p.lastIoError())
                .withSourceSql(p.sqlRunning(), p.lastSqlError());
          });
    } catch (FlavorMismatchException e) {
      // Not polled (a server is never driven as the other flavor), but its flavor is known: the
      // monitor reports the wrong declaration instead of acting on a site that seems down.
      return Probe.unreachable(site.name(), describe(e), clock.instant()).withFlavor(e.actual().display());
    } catch (MysqlException e) {
      return failed(site.name(), e, clock.instant());
    } catch (RuntimeException e) {
      return Probe.unreachable(site.name(), (e instanceof TlsUnavailableException ? Probe.TLS_ERROR : "") + describe(e),
          clock.instant());
    }
  }

  /**
   * A poll that failed with {@code e}. A failed TLS handshake reached a live server: it is marked
   * with why ({@link Probe#tlsError}), so it is never counted as lost and the condition, the Event
   * and the metric name the reason (TlsProblems).
   */
  public static Probe failed(String site, MysqlException e, java.time.Instant at) {
    return e.tlsReason().map(reason -> Probe.tlsError(site, reason, describe(e), at))
        .orElseGet(() -> Probe.unreachable(site, describe(e), at));
  }

  /** One round trip where the flavor allows it ({@link io.shipstream.failover.mysql.SqlDialect#sourceView}). */
  @Override
  public ReplicaView sourceView(GroupRef group, GroupConfig config, SiteSpec site, java.time.Instant at) {
    try {
      // On the site's kept poll connection: the replicas are asked while the primary is in doubt,
      // and a handshake and login each would add their round trips to the confirmation.
      return keptSession(group, config, site, session -> {
        SourceView v = session.dialect().sourceView(session);
        return new ReplicaView(site.name(), true, v.configured(), v.ioState(), v.lastIoErrno(), v.lastIoError(),
            v.sourceServerId(), v.silence(), v.progress(), v.progressCountsHeartbeats(), clock.instant(),
            v.lastIoErrorAge());
      });
    } catch (MysqlException | RuntimeException e) {
      return ReplicaView.unanswered(site.name(), describe(e), clock.instant());
    }
  }

  @Override
  public void fence(GroupRef group, GroupConfig config, SiteSpec site) throws MysqlException {
    try (MysqlSession session = open(group, config, site)) {
      Fence.apply(session, FENCE_LOCK_WAIT_SECONDS, Set.of());
    }
  }

  @Override
  public void unfence(GroupRef group, GroupConfig config, SiteSpec site) throws MysqlException {
    try (MysqlSession session = open(group, config, site)) {
      if (!Fence.lift(session, true)) {
        throw new IllegalStateException(site.name() + " is still read-only after read_only was cleared");
      }
    }
  }

  /** Closes the kept poll connections of a group the monitor no longer watches. */
  @Override
  public void forget(GroupRef group) {
    polls.forget(k -> k.group().equals(group));
  }

  /** Connections opened for polls so far, and polls answered on a kept one: for tests and the fleet benchmark. */
  public long pollConnectionsOpened() {
    return polls.opened();
  }

  public long pollsOnKeptConnections() {
    return polls.reused();
  }

  /** Closes every kept poll connection (the monitor stopped). */
  public void close() {
    polls.close();
  }

  @Override
  public SemiSyncReading semiSync(GroupRef group, GroupConfig config, SiteSpec site, SemiSyncSettings want)
      throws MysqlException {
    return keptSession(group, config, site, session -> {
      SemiSync.Outcome outcome = SemiSync.apply(session, want);
      return new SemiSyncReading(outcome.before(), outcome.after(), outcome.changes());
    });
  }

  /** {@code work} on the site's kept poll connection ({@link KeptSessions}). */
  private <T> T keptSession(GroupRef group, GroupConfig config, SiteSpec site, KeptSessions.Work<T> work)
      throws MysqlException {
    Credentials login = logins.credentials(group, config.credentialsSecret());
    return polls.use(new SiteKey(group, site.name()), address(site), login, Timeouts.of(timeout(config.pollInterval())),
        work);
  }

  private MysqlSession open(GroupRef group, GroupConfig config, SiteSpec site) throws MysqlException {
    Credentials login = logins.credentials(group, config.credentialsSecret());
    return MysqlSession.open(connections, address(site), login, Timeouts.of(timeout(config.pollInterval())));
  }

  /** A site's server, named by its site in log lines and messages, with its declared flavor if any. */
  static MysqlAddress address(SiteSpec site) {
    String host = site.mysql().host();
    int port = GroupConfig.mysqlPort(site);
    return new MysqlAddress(host, port, site.name() + " (" + host + ":" + port + ")",
        ServerFlavor.ofSpec(site.flavor()));
  }

  /** The error for status and logs: the driver's message, which never carries the password. */
  private static String describe(Exception e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
