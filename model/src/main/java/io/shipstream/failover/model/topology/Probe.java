package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.tls.TlsProblem;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One raw poll of a site's server, before any debouncing: what the watcher saw at {@code at}.
 *
 * @param site the site name, as in {@code spec.sites[].name}
 * @param reachable whether the server answered within the poll's timeout
 * @param readOnly whether it refuses application writes; meaningless when unreachable
 * @param gtidExecuted the executed GTID set in the server's own notation (MySQL {@code @@gtid_executed},
 *     MariaDB {@code @@gtid_binlog_pos}); null when unreachable or unknown
 * @param serverId the server's own identity: {@code @@server_uuid} on MySQL, {@code @@server_id} (decimal) on
 *     MariaDB; null when unknown. Candidate selection uses it to recognise errant transactions (see
 *     {@link CandidateSelection}); without it only the pairwise checks apply.
 * @param replicating whether both replication threads run
 * @param secondsBehindSource the replication lag the server reports; null when not replicating or unknown
 * @param error why the poll failed, for status and Events; null when it did not
 * @param at when the poll was taken; the watcher's clock, passed in so this code never reads one
 * @param sourceServerId the identity of the server it replicates from, as its replication status names it
 *     (MariaDB {@code Master_Server_Id}, MySQL {@code Source_UUID}), compared with other sites'
 *     {@code serverId}; null when it replicates from nobody or the source is not known yet
 * @param flavor "MySQL" or "MariaDB", as the server's version says; set also when the poll failed because
 *     the site declares the other flavor; null when unknown. A group of both flavors is refused ({@link
 *     io.shipstream.failover.model.GroupConfig#mixedFlavors}).
 * @param receivedGtid what the replica's IO thread has received, in the server's notation (MySQL
 *     {@code Retrieved_Gtid_Set}, MariaDB {@code Gtid_IO_Pos}, a position per domain); null when it is
 *     no replica or the poll did not read it. With {@code gtidExecuted} it says how much of its source's
 *     history the replica holds or has in its relay log ({@link PromotionLag}).
 * @param sourceIoState the replica's IO thread: "Yes", "No" or "Connecting"; null when it is no replica or
 *     the poll did not read it
 * @param sourceIoError the IO thread's last error, null or blank when none: with {@code sourceIoState} it
 *     says whether the replica lost its source's connection ({@link PrimaryConfirmation#pollPrimaryNow})
 * @param sourceSqlRunning whether the replica's SQL thread runs; null when it is no replica or the poll did
 *     not read it
 * @param sourceSqlError the SQL thread's last error, null or blank when none: a candidate whose SQL thread
 *     stopped on an error is never promoted ({@link CandidateSelection#sqlThreadProblem})
 */
public record Probe(
    String site,
    boolean reachable,
    boolean readOnly,
    String gtidExecuted,
    String serverId,
    boolean replicating,
    Long secondsBehindSource,
    String error,
    Instant at,
    String sourceServerId,
    String flavor,
    String receivedGtid,
    String sourceIoState,
    String sourceIoError,
    Boolean sourceSqlRunning,
    String sourceSqlError) {

  public Probe {
    Objects.requireNonNull(site, "site");
    Objects.requireNonNull(at, "at");
  }

  /** A poll that does not say how the replica's SQL thread is. */
  public Probe(String site, boolean reachable, boolean readOnly, String gtidExecuted, String serverId,
      boolean replicating, Long secondsBehindSource, String error, Instant at, String sourceServerId, String flavor,
      String receivedGtid, String sourceIoState, String sourceIoError) {
    this(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at, sourceServerId,
        flavor, receivedGtid, sourceIoState, sourceIoError, null, null);
  }

  /** A poll that does not say how the replica's IO thread is. */
  public Probe(String site, boolean reachable, boolean readOnly, String gtidExecuted, String serverId,
      boolean replicating, Long secondsBehindSource, String error, Instant at, String sourceServerId, String flavor,
      String receivedGtid) {
    this(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at, sourceServerId,
        flavor, receivedGtid, null, null);
  }

  /** A poll that does not say what the replica received. */
  public Probe(String site, boolean reachable, boolean readOnly, String gtidExecuted, String serverId,
      boolean replicating, Long secondsBehindSource, String error, Instant at, String sourceServerId, String flavor) {
    this(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at, sourceServerId,
        flavor, null);
  }

  /** A poll that does not say the server's flavor. */
  public Probe(String site, boolean reachable, boolean readOnly, String gtidExecuted, String serverId,
      boolean replicating, Long secondsBehindSource, String error, Instant at, String sourceServerId) {
    this(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at, sourceServerId,
        null);
  }

  /** A poll that does not say where the server replicates from. */
  public Probe(String site, boolean reachable, boolean readOnly, String gtidExecuted, String serverId,
      boolean replicating, Long secondsBehindSource, String error, Instant at) {
    this(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at, null);
  }

  /** A poll that got no answer. */
  /**
   * How the watcher's poll names a failed TLS handshake in {@code error}: the server was reached and
   * is up ({@link TlsProblems}).
   */
  public static final String TLS_ERROR = "TLS: ";

  /** Whether {@code error} is a failed TLS handshake ({@link #TLS_ERROR}). */
  public static boolean isTlsError(String error) {
    return error != null && error.startsWith(TLS_ERROR);
  }

  /**
   * A poll that reached the server and failed in the TLS handshake for {@code problem}: its error
   * reads "TLS: CertificateExpired: its certificate has expired (the driver's words)".
   */
  public static Probe tlsError(String site, TlsProblem problem, String detail, Instant at) {
    return unreachable(site, TLS_ERROR + problem.describe(detail), at);
  }

  /**
   * The reason of a {@link #TLS_ERROR}, as a condition, an Event and a metric label name it: the
   * {@link TlsProblem} a {@link #tlsError} names, or {@code TlsSettingsUnavailable} for one that
   * names none (the group's TLS Secret or a key in it could not be read); empty for another error.
   */
  public static Optional<String> tlsReason(String error) {
    if (!isTlsError(error)) {
      return Optional.empty();
    }
    String rest = error.substring(TLS_ERROR.length());
    for (TlsProblem p : TlsProblem.values()) {
      if (rest.startsWith(p.name() + ": ")) {
        return Optional.of(p.name());
      }
    }
    return Optional.of("TlsSettingsUnavailable");
  }

  public static Probe unreachable(String site, String error, Instant at) {
    return new Probe(site, false, false, null, null, false, null, error, at);
  }

  /** The same poll, naming the server's flavor. */
  public Probe withFlavor(String flavor) {
    return new Probe(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at,
        sourceServerId, flavor, receivedGtid, sourceIoState, sourceIoError, sourceSqlRunning, sourceSqlError);
  }

  /** The same poll, with what the replica's IO thread has received. */
  public Probe withReceivedGtid(String received) {
    return new Probe(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at,
        sourceServerId, flavor, received, sourceIoState, sourceIoError, sourceSqlRunning, sourceSqlError);
  }

  /** The same poll, with the replica's IO thread state and last error. */
  public Probe withSourceIo(String ioState, String ioError) {
    return new Probe(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at,
        sourceServerId, flavor, receivedGtid, ioState, ioError, sourceSqlRunning, sourceSqlError);
  }

  /** The same poll, with the replica's SQL thread: whether it runs and its last error. */
  public Probe withSourceSql(Boolean sqlRunning, String sqlError) {
    return new Probe(site, reachable, readOnly, gtidExecuted, serverId, replicating, secondsBehindSource, error, at,
        sourceServerId, flavor, receivedGtid, sourceIoState, sourceIoError, sqlRunning, sqlError);
  }

  /** The state this single poll shows, before debouncing. */
  public SiteState observed() {
    if (!reachable) {
      return SiteState.UNREACHABLE;
    }
    return readOnly ? SiteState.READ_ONLY : SiteState.WRITABLE;
  }
}
