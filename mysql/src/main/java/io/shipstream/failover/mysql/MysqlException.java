package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.TlsProblem;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;

/**
 * A server could not be reached, or refused a statement. It carries what the callers decide on (the
 * server's error code, and whether the connection is the problem), so that no code outside this
 * module needs the driver's {@link SQLException}; the activities turn it into Temporal's failure types.
 */
public class MysqlException extends Exception {
  /** Client-side codes for a lost or refused connection, and ER_CON_COUNT_ERROR (too many connections). */
  private static final Set<Integer> CONNECTION_ERRORS =
      Set.of(1040, 1152, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013);

  private final int errorCode;
  private final boolean connectionProblem;
  private final TlsProblem tlsReason;

  /** What the driver reported. */
  public MysqlException(SQLException cause) {
    super(cause.getMessage(), cause);
    this.errorCode = cause.getErrorCode();
    this.tlsReason = tlsReason(cause).orElse(null);
    // A failed TLS handshake reached the server: it is no lost connection (see tlsProblem()).
    this.connectionProblem = tlsReason == null && isConnectionProblem(cause);
  }

  /** A problem this module found itself (no server error code, not a connection problem). */
  public MysqlException(String message) {
    super(message);
    this.errorCode = 0;
    this.connectionProblem = false;
    this.tlsReason = null;
  }

  /**
   * Whether the TLS handshake failed: a certificate the CA did not sign, expired or not yet valid,
   * a name that does not match, a server that offers no TLS where it is required, or a refused
   * client certificate. The server was reached and is up, so this never counts as a server lost
   * (the watcher reports it as TlsError naming the site, and fences and fails over nothing for it).
   */
  public boolean tlsProblem() {
    return tlsReason != null;
  }

  /** Why the TLS handshake failed ({@link #tlsProblem}); empty when it did not. */
  public Optional<TlsProblem> tlsReason() {
    return Optional.ofNullable(tlsReason);
  }

  /**
   * Why {@code e} is a failed TLS handshake, empty when it is not: the certificate exceptions
   * among its causes name it (both drivers verify the server with the JDK's checks, see {@link
   * TlsProblem#of}); a failure the drivers word themselves ({@link #isTlsProblem}) is named from
   * its words ({@link TlsProblem#ofServerMessage}), or else is {@link TlsProblem#HandshakeFailed}.
   */
  public static Optional<TlsProblem> tlsReason(SQLException e) {
    Optional<TlsProblem> byType = TlsProblem.of(e);
    if (byType.isPresent() && byType.get() != TlsProblem.HandshakeFailed) {
      return byType;
    }
    if (byType.isEmpty() && !isTlsProblem(e)) {
      return Optional.empty();
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      Optional<TlsProblem> named = TlsProblem.ofServerMessage(t.getMessage());
      if (named.isPresent() && named.get() != TlsProblem.HandshakeFailed) {
        return named;
      }
    }
    return Optional.of(TlsProblem.HandshakeFailed);
  }

  /** CR_SSL_CONNECTION_ERROR, both clients. */
  static final int SSL_CONNECTION_ERROR = 2026;

  /**
   * The driver's words for a failed TLS handshake: an {@code SSLException} or a certificate
   * exception anywhere in the causes (both drivers), or error 2026, or a message of the drivers'
   * own TLS checks (Connector/J's "SSL connection required", MariaDB's "Trying to connect with ssl,
   * but ssl not enabled in the server" and "SSL hostname verification failed").
   */
  public static boolean isTlsProblem(SQLException e) {
    if (e.getErrorCode() == SSL_CONNECTION_ERROR) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException || t instanceof java.security.cert.CertificateException) {
        return true;
      }
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(java.util.Locale.ROOT);
      if (m.contains("ssl connection") || m.contains("ssl not enabled") || m.contains("ssl is required")
          || m.contains("tls handshake") || m.contains("ssl handshake") || m.contains("ssl hostname verification")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The server's error number (1205 for a lock wait timeout, ...), or 0 when there is none. */
  public int errorCode() {
    return errorCode;
  }

  /** Whether the server could not be reached or the connection broke, rather than a statement being refused. */
  public boolean connectionProblem() {
    return connectionProblem;
  }

  /** The message with the server's error number, for results, status and logs; never a password. */
  public String describe() {
    return errorCode == 0 ? getMessage() : "error " + errorCode + ": " + getMessage();
  }

  /** Whether the error says the server could not be reached or the connection broke. */
  public static boolean isConnectionProblem(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException
        || e instanceof SQLTimeoutException
        || (state != null && state.startsWith("08"))
        || CONNECTION_ERRORS.contains(e.getErrorCode());
  }
}
