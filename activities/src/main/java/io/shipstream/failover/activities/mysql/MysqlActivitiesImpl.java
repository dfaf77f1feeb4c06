package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.tls.ChannelTls;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.mysql.AppSessions;
import io.shipstream.failover.mysql.ChannelReport;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsProvider;
import io.shipstream.failover.mysql.CredentialsUnavailableException;
import io.shipstream.failover.mysql.Fence;
import io.shipstream.failover.mysql.GtidWait;
import io.shipstream.failover.mysql.GtidWaitTimeoutException;
import io.shipstream.failover.mysql.IncomparableGtidSetsException;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.Promotion;
import io.shipstream.failover.mysql.RelayLogDrain;
import io.shipstream.failover.mysql.ReplicaCatchUp;
import io.shipstream.failover.mysql.ReplicaStatus;
import io.shipstream.failover.mysql.ReplicationFailedException;
import io.shipstream.failover.mysql.ReplicationNotConnectedException;
import io.shipstream.failover.mysql.ReplicationStart;
import io.shipstream.failover.mysql.ServerFlavor;
import io.shipstream.failover.mysql.SourceChange;
import io.shipstream.failover.mysql.SqlDialect;
import io.shipstream.failover.mysql.StillReadOnlyException;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MySQL and MariaDB steps of a failover. Each call opens one admin connection, detects the
 * flavor and runs the flavor's statements through {@link SqlDialect}. Deadlines are absolute
 * instants from the workflow, compared with the injected clock, so a retry on another worker
 * continues the same budget instead of starting a new one. The statements and procedures live in
 * the mysql module ({@link Fence}, {@link Promotion}, {@link RelayLogDrain}, {@link ReplicaCatchUp},
 * {@link AppSessions}, ...); this class opens their sessions, heartbeats, sizes each call's timeouts
 * and turns its failures into Temporal's types.
 */
public final class MysqlActivitiesImpl implements MysqlActivities {
  private static final Logger LOG = LoggerFactory.getLogger(MysqlActivitiesImpl.class);
  /** Short, so an unreachable server is reported quickly. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration INSPECT_TIMEOUT = Duration.ofSeconds(5);
  /** Long enough for SET GLOBAL read_only to wait out lock_wait_timeout once and be retried. */
  private static final Duration FENCE_TIMEOUT = Duration.ofSeconds(15);
  /** How long the fence may wait for open transactions before the application's sessions are killed. */
  private static final int FENCE_LOCK_WAIT_SECONDS = 5;
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PROMOTE_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration KILL_INTERVAL = Duration.ofMillis(75);
  /**
   * How long {@link #readChannel} waits for an IO thread still connecting: the re-pointing already
   * waited for it to run, so this only covers a reconnect, and must not hold up the failover's end.
   */
  private static final Duration CHANNEL_CONNECT_WAIT = Duration.ofSeconds(3);

  private final CredentialsProvider credentials;
  private final Clock clock;
  private final MysqlConnections connections;
  private final Heartbeat heartbeat;
  private final String connectionsQueue;

  /** As wired in the worker: heartbeats go to Temporal; no queue of its own. */
  public MysqlActivitiesImpl(CredentialsProvider credentials, Clock clock) {
    this(credentials, clock, null);
  }

  /**
   * As wired in the worker, with {@code connectionsQueue} the task queue this worker alone polls
   * with this instance (null: none), see {@link #connectionsQueue()}.
   */
  public MysqlActivitiesImpl(CredentialsProvider credentials, Clock clock, String connectionsQueue) {
    this(credentials, clock, new MysqlConnections(), Heartbeat.temporal(), connectionsQueue);
  }

  public MysqlActivitiesImpl(CredentialsProvider credentials, Clock clock, MysqlConnections connections,
      Heartbeat heartbeat) {
    this(credentials, clock, connections, heartbeat, null);
  }

  private MysqlActivitiesImpl(CredentialsProvider credentials, Clock clock, MysqlConnections connections,
      Heartbeat heartbeat, String connectionsQueue) {
    this.credentials = credentials;
    this.clock = clock;
    this.connections = connections;
    this.heartbeat = heartbeat;
    this.connectionsQueue = connectionsQueue;
  }

  @Override
  public String connectionsQueue() {
    return connectionsQueue;
  }

  @Override
  public ServerState inspect(MysqlTarget target) {
    Credentials login;
    try {
      login = credentials.credentials(target.group(), target.credentialsSecret());
    } catch (CredentialsUnavailableException e) {
      return ServerState.unreachable(target.site(), "no credentials: " + e.getMessage());
    }
    try {
      return MysqlSession.run(connections, address(target), login, timeouts(INSPECT_TIMEOUT),
          session -> inspect(target, session));
    } catch (MysqlException e) {
      LOG.debug("inspect {}: {}", target, e.getMessage());
      return ServerState.unreachable(target.site(), e.describe());
    }
  }

  /** One exchange: the replica's status, the read-only flag, the executed set and the sessions. */
  private static ServerState inspect(MysqlTarget target, MysqlSession session) throws MysqlException {
    SqlDialect dialect = session.dialect();
    List<List<Map<String, String>>> results = session.queryAll(dialect.replicaStatusQuery() + "; "
        + dialect.positionsQuery() + "; SELECT @@global.read_only AS read_only; " + AppSessions.QUERY);
    // SHOW SLAVE STATUS of a server that is no replica returns a result without rows.
    Optional<ReplicaStatus> replica = dialect.replicaStatus(results.get(0));
    return new ServerState(
        target.site(),
        true,
        null,
        dialect.flavor(),
        session.version(),
        MysqlSession.flag(results.get(2).get(0).get("read_only")),
        replica.isPresent(),
        replica.map(ReplicaStatus::ioRunning).orElse(false),
        replica.map(ReplicaStatus::sqlRunning).orElse(false),
        replica.map(ReplicaStatus::sourceHost).orElse(null),
        replica.map(ReplicaStatus::sourcePort).orElse(null),
        dialect.positions(results.get(1).get(0)).executed(),
        replica.map(ReplicaStatus::receivedGtidSet).orElse(null),
        replica.map(ReplicaStatus::secondsBehindSource).orElse(null),
        AppSessions.of(session, results.get(3), Set.of()).size(),
        replica.map(ReplicaStatus::lastSqlError).orElse(null));
  }

  @Override
  public FenceResult fence(MysqlTarget target) {
    return withSession("fence", target, FENCE_TIMEOUT, false, session -> {
      // One exchange: the fence, the executed set right after it, the sessions to drain.
      Fence.Fenced fenced = Fence.applyAndRead(session, FENCE_LOCK_WAIT_SECONDS, Set.of());
      FenceResult result = new FenceResult(fenced.gtidExecuted(), fenced.appSessions().size(),
          session.lastExchangeMiddle(clock));
      LOG.info("fenced {}: gtid {} with {} application sessions open", target, result.gtidExecuted(),
          result.appConnections());
      return result;
    });
  }

  @Override
  public void unfence(MysqlTarget target) {
    withSession("unfence", target, STEP_TIMEOUT, false, session -> {
      if (!Fence.lift(session, true)) {
        throw ApplicationFailure.newFailure(target + " is still read-only after unfencing", MysqlFailures.MYSQL_ERROR);
      }
      LOG.info("unfenced {}", target);
      return null;
    });
  }

  @Override
  public DrainResult killAppConnections(MysqlTarget target, Instant deadline) {
    return withSession("killAppConnections", target, STEP_TIMEOUT, false, session -> {
      AppSessions.Drained drained = AppSessions.drainWhileFenced(session, deadline, clock, KILL_INTERVAL,
          heartbeat::beat);
      return new DrainResult(drained.killed(), drained.remaining());
    });
  }

  @Override
  public String waitForGtidSet(MysqlTarget target, String gtidSet, Instant deadline) {
    GtidSet wanted = parse(gtidSet, "the GTID set to wait for");
    return withSession("waitForGtidSet", target, GtidWait.SLICE.plus(STEP_TIMEOUT), false,
        session -> GtidWait.until(session, wanted, deadline, clock, heartbeat::beat));
  }

  @Override
  public String catchUpBeforeFence(MysqlTarget target, String gtidSet, Instant deadline) {
    return waitForGtidSet(target, gtidSet, deadline);
  }

  @Override
  public PromoteResult promote(MysqlTarget target, Instant relayDrainDeadline, SemiSyncSettings semiSync,
      boolean caughtUpFromFencedSource) {
    return withSession("promote", target, PROMOTE_TIMEOUT, true, session -> {
      Promotion.Promoted promoted;
      try {
        promoted = new Promotion(session, clock, heartbeat::beat).run(relayDrainDeadline, semiSync,
            caughtUpFromFencedSource);
      } catch (StillReadOnlyException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            target + " still reports read-only after clearing it", MysqlFailures.PROMOTE_FAILED);
      }
      return new PromoteResult(promoted.gtidExecuted(), promoted.relayAppliedUpTo(), promoted.writableAt());
    });
  }

  @Override
  public StoppedReplica drainAndStopReplica(MysqlTarget target, Instant relayDrainDeadline) {
    return withSession("drainAndStopReplica", target, PROMOTE_TIMEOUT, false, session -> {
      RelayLogDrain.Stopped stopped = new RelayLogDrain(session, clock, heartbeat::beat).drainAndStop(
          relayDrainDeadline);
      return new StoppedReplica(stopped.gtidExecuted(), stopped.gtidReceived(), stopped.wasReplica(),
          stopped.logsReplicaUpdates());
    });
  }

  @Override
  public String catchUpFrom(MysqlTarget replica, MysqlTarget donor, String donorGtid, Instant deadline) {
    GtidSet wanted = parse(donorGtid, "the donor's GTID set");
    Credentials donorLogin = credentialsFor(donor);
    return withSession("catchUpFrom", replica, GtidWait.SLICE.plus(STEP_TIMEOUT), false,
        session -> new ReplicaCatchUp(session, clock, heartbeat::beat).run(address(donor), donorLogin,
            donorLogin.tls().channelFor(replica.site()), wanted, deadline));
  }

  @Override
  public void replicateFrom(MysqlTarget replica, MysqlTarget source) {
    Credentials sourceLogin = credentialsFor(source);
    withSession("replicateFrom", replica, STEP_TIMEOUT.multipliedBy(3), false, session -> {
      SqlDialect dialect = session.dialect();
      // Read-only first: a server that takes application writes while replicating diverges.
      dialect.fence(session);
      Optional<ReplicaStatus> status = dialect.replicaStatus(session);
      // The replica's own site's files: the channel's options name files on its server.
      ChannelTls tls = sourceLogin.tls().channelFor(replica.site());
      if (status.isPresent() && pointsAt(status.get(), source) && status.get().ioRunning() && status.get().sqlRunning()
          && (!tls.mode().encrypted() || dialect.channelReport(session).satisfies(tls))) {
        LOG.info("{} already replicates from {}", replica, source);
        return null;
      }
      // A running channel weaker than the group's replication TLS is pointed again, with it.
      SourceChange.replicateFrom(session, address(source), sourceLogin, tls);
      new ReplicationStart(session, heartbeat::beat).awaitRunning(address(replica), address(source));
      LOG.info("{} replicates from {}", replica, source);
      return null;
    });
  }

  @Override
  public ChannelCheck readChannel(MysqlTarget replica, MysqlTarget source) {
    Credentials login;
    try {
      login = credentials.credentials(replica.group(), replica.credentialsSecret());
    } catch (CredentialsUnavailableException e) {
      return ChannelCheck.unreadable(replica.site(), source.site(), null, "no credentials: " + e.getMessage());
    }
    // The replica's own site's files, as the re-pointing used them.
    ChannelTls tls = login.tls().channelFor(replica.site());
    try {
      return MysqlSession.run(connections, address(replica), login, timeouts(INSPECT_TIMEOUT), session -> {
        ChannelReport report = ChannelReport.read(session, CHANNEL_CONNECT_WAIT);
        Optional<ReplicaStatus> status = session.dialect().replicaStatus(session);
        return report.check(replica.site(), source.site(), tls, status.isPresent() && pointsAt(status.get(), source));
      });
    } catch (MysqlException e) {
      LOG.debug("readChannel {}: {}", replica, e.getMessage());
      return ChannelCheck.unreadable(replica.site(), source.site(), tls.mode().display(), e.describe());
    }
  }

  private static boolean pointsAt(ReplicaStatus status, MysqlTarget source) {
    return source.host().equalsIgnoreCase(status.sourceHost())
        && status.sourcePort() != null
        && status.sourcePort() == source.port();
  }

  private static GtidSet parse(String text, String what) {
    try {
      return GtidSet.parse(text);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          what + " is not a GTID set: " + e.getMessage(), MysqlFailures.INVALID_GTID_SET, e);
    }
  }

  private Credentials credentialsFor(MysqlTarget target) {
    try {
      return credentials.credentials(target.group(), target.credentialsSecret());
    } catch (CredentialsUnavailableException e) {
      throw MysqlFailures.credentials(target, e);
    }
  }

  @FunctionalInterface
  private interface SessionWork<T> {
    T run(MysqlSession session) throws MysqlException;
  }

  /**
   * Runs {@code work} on an admin connection (a kept one where there is one, see {@link
   * MysqlSession#run}). A lost connection is {@code Unreachable}
   * (retryable); any other SQL error is {@code PromoteFailed} (not retryable) when {@code
   * refusalIsFinal}, else {@code MysqlError} (retryable). The mysql module's other failures become
   * their types here: a missed GTID deadline {@code LagTimeout}, broken replication {@code
   * ReplicationFailed} (neither retryable), replication still connecting {@code Unreachable}, a set
   * of the wrong flavor {@code InvalidGtidSet}.
   */
  private <T> T withSession(
      String action, MysqlTarget target, Duration socketTimeout, boolean refusalIsFinal, SessionWork<T> work) {
    Credentials login = credentialsFor(target);
    try {
      return MysqlSession.run(connections, address(target), login, timeouts(socketTimeout), work::run);
    } catch (MysqlException e) {
      if (refusalIsFinal && !e.connectionProblem()) {
        throw ApplicationFailure.newNonRetryableFailureWithCause(
            action + " on " + target + " was refused: " + e.describe(), MysqlFailures.PROMOTE_FAILED, e);
      }
      throw MysqlFailures.of(action, target, e);
    } catch (GtidWaitTimeoutException e) {
      throw MysqlFailures.lagTimeout(e);
    } catch (ReplicationFailedException e) {
      throw MysqlFailures.replicationFailed(e);
    } catch (ReplicationNotConnectedException e) {
      throw MysqlFailures.notConnected(e);
    } catch (IncomparableGtidSetsException e) {
      throw MysqlFailures.invalidGtidSet(e);
    }
  }

  private static MysqlAddress address(MysqlTarget target) {
    return new MysqlAddress(target.host(), target.port(), target.toString(), ServerFlavor.ofSpec(target.flavor()));
  }

  private static Timeouts timeouts(Duration socketTimeout) {
    return new Timeouts(CONNECT_TIMEOUT, socketTimeout);
  }
}
