package io.shipstream.failover.sidecar;

import io.shipstream.failover.mysql.AppSessions;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.Fence;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.ReadOnlyOrigin;
import io.shipstream.failover.mysql.SessionTls;
import io.shipstream.failover.mysql.SqlDialect;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local server through the mysql module (its flavor read from its greeting once, then spoken
 * to with the flavor's own driver). One short connection per call: the server is on the same
 * pod, so it costs about a millisecond, and no pooled connection can outlive a restart of the
 * server. A look at the server gives up after {@link #PROBE_TIMEOUT} in every phase (a frozen
 * server accepts the TCP connection in the kernel and never greets), so the sidecar can watch a
 * frozen server closely and sees it the moment it resumes.
 */
final class JdbcLocalMysql implements LocalMysql {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLocalMysql.class);
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  /** How long a look at the server waits for any answer, the greeting included. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
  /** How long SET GLOBAL read_only may wait for open transactions before they are killed. */
  static final int LOCK_WAIT_SECONDS = 2;
  /**
   * How long any one statement of a fence may wait for its answer: twice the lock wait, so a fence
   * that waits out lock_wait_timeout gets its error back, and short enough that a tick's work on
   * the server fits the health bound's allowance ({@link #LONGEST_HEALTHY_WORK}).
   */
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2L * LOCK_WAIT_SECONDS);
  /**
   * What one tick spends on a server that answers, at worst: a look (connect, then the probe's
   * wait), then a fence (connect, one lock wait, a second for the kills and the second attempt;
   * behind commits waiting for a semi-sync acknowledgement, a second connection and the fence
   * queued on it instead, see {@code SidecarLiveness.LOCAL_MYSQL_ALLOWANCE}).
   * {@code SidecarLiveness.LOCAL_MYSQL_ALLOWANCE} must cover it, and the sidecar's tests check so.
   */
  static final Duration LONGEST_HEALTHY_WORK = CONNECT_TIMEOUT.plus(PROBE_TIMEOUT).plus(CONNECT_TIMEOUT)
      .plusSeconds(LOCK_WAIT_SECONDS).plusSeconds(1);
  private static final Timeouts LOOK = new Timeouts(CONNECT_TIMEOUT, PROBE_TIMEOUT);
  private static final Timeouts CHANGE = new Timeouts(CONNECT_TIMEOUT, SOCKET_TIMEOUT);

  private final MysqlAddress address;
  private final Credentials login;
  private final Set<String> spareUsers;
  private final MysqlConnections connections = MysqlConnections.unpooled();
  private volatile String flavor = "unknown";
  private volatile Optional<Boolean> startsReadOnly = Optional.empty();

  JdbcLocalMysql(String host, int port, String user, String password, Set<String> spareUsers) {
    this(host, port, user, password, spareUsers, SessionTls.NONE);
  }

  /** {@code tls}: the sidecar's own mounts' (it has no API access, and fences at boot before the watcher answers). */
  JdbcLocalMysql(String host, int port, String user, String password, Set<String> spareUsers, SessionTls tls) {
    this.address = new MysqlAddress(host, port, "local MySQL (" + host + ":" + port + ")");
    this.login = Credentials.of(user, password).withTls(tls, null);
    Set<String> spared = new HashSet<>(spareUsers);
    spared.add(user);
    this.spareUsers = Set.copyOf(spared);
  }

  @Override
  public MysqlState state() {
    try (MysqlSession session = open(LOOK)) {
      SqlDialect dialect = session.dialect();
      ReadOnlyOrigin origin = dialect.readOnlyOrigin(session);
      origin.startsReadOnly().ifPresent(known -> startsReadOnly = Optional.of(known));
      LOG.trace("{} {}", dialect.flavor(), origin);
      if (!origin.readOnly()) {
        return MysqlState.WRITABLE;
      }
      // No replication channel is configured: a primary's, never a replica's, even one with its threads stopped.
      return origin.untouchedSinceStart() && !dialect.hasReplicationChannel(session) ? MysqlState.STARTUP_READ_ONLY
          : MysqlState.READ_ONLY;
    } catch (MysqlException e) {
      LOG.debug("local MySQL unreachable: {}", e.getMessage());
      return MysqlState.UNREACHABLE;
    }
  }

  @Override
  public Optional<Boolean> startsReadOnly() {
    return startsReadOnly;
  }

  /** The fence, then every application session killed, so none goes on writing through an open transaction. */
  @Override
  public int fence() throws MysqlException {
    try (MysqlSession session = open(CHANGE)) {
      int killed = Fence.apply(session, LOCK_WAIT_SECONDS, spareUsers);
      return killed + AppSessions.kill(session, AppSessions.list(session, spareUsers));
    }
  }

  @Override
  public void unfence() throws MysqlException {
    try (MysqlSession session = open(CHANGE)) {
      Fence.lift(session, false);
    }
  }

  @Override
  public String flavor() {
    return flavor;
  }

  private MysqlSession open(Timeouts timeouts) throws MysqlException {
    MysqlSession session = MysqlSession.open(connections, address, login, timeouts);
    flavor = session.dialect().flavor();
    return session;
  }
}
