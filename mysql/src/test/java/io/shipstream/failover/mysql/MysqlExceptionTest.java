package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.tls.TlsProblem;
import java.net.ConnectException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class MysqlExceptionTest {

  @Test
  void serverGoneAwayCountsAsAConnectionProblem() {
    assertThat(MysqlException.isConnectionProblem(new SQLException("MySQL server has gone away", "HY000", 2006)))
        .isTrue();
    assertThat(MysqlException.isConnectionProblem(new SQLException("Duplicate entry", "23000", 1062))).isFalse();
    assertThat(new MysqlException(new SQLException("MySQL server has gone away", "HY000", 2006)).connectionProblem())
        .isTrue();
  }

  @Test
  void aServerErrorIsDescribedWithItsCode() {
    MysqlException e =
        new MysqlException(new SQLSyntaxErrorException("Access denied; you need the SUPER privilege", "42000", 1227));

    assertThat(e.errorCode()).isEqualTo(1227);
    assertThat(e.describe()).isEqualTo("error 1227: Access denied; you need the SUPER privilege");
  }

  @Test
  void theFlavorComesFromTheVersionString() {
    assertThat(SqlDialect.forVersion("10.11.19-MariaDB-0+deb12u1-log").flavor()).isEqualTo("MariaDB");
    assertThat(SqlDialect.forVersion("8.4.3").flavor()).isEqualTo("MySQL");
  }

  /** A driver's failure to connect: {@code message}, with {@code cause} under a handshake exception. */
  private static MysqlException connecting(String message, Throwable cause) {
    SSLHandshakeException handshake = new SSLHandshakeException(cause.getMessage());
    handshake.initCause(cause);
    return new MysqlException(new SQLNonTransientConnectionException(message, "08S01", 0, handshake));
  }

  private static CertPathValidatorException validity(BasicReason reason, Throwable cause) {
    return new CertPathValidatorException("validity check failed", cause, null, -1, reason);
  }

  /**
   * The chains the two drivers report (as TlsIT sees them from mysqld 9.7 and mariadbd 10.11): each
   * is named, none is a lost connection.
   */
  @Test
  void eachWayATlsHandshakeFailsIsNamedAndIsNoLostConnection() {
    // Connector/J checks the dates itself, then the chain, then the name.
    assertThat(connecting("Communications link failure", new CertificateExpiredException("NotAfter: ...")).tlsReason())
        .contains(TlsProblem.CertificateExpired);
    assertThat(connecting("Communications link failure", new CertificateNotYetValidException("NotBefore: ..."))
        .tlsReason()).contains(TlsProblem.CertificateNotYetValid);
    assertThat(connecting("Communications link failure", new CertificateException(
        new CertPathValidatorException("Path does not chain with any of the trust anchors"))).tlsReason())
        .contains(TlsProblem.UnknownCertificateAuthority);
    assertThat(connecting("Communications link failure", new CertificateException("Server identity verification"
        + " failed. None of the DNS or IP Subject Alternative Name entries matched the server hostname/IP 'localhost'."))
        .tlsReason()).contains(TlsProblem.HostnameMismatch);
    // MariaDB Connector/J: the JDK's PKIX checks, and its own name check in its own words.
    MysqlException expired = connecting("(conn=11) Could not connect to 127.0.0.1:29509 : PKIX path validation failed:"
        + " java.security.cert.CertPathValidatorException: validity check failed",
        validity(BasicReason.EXPIRED, new CertificateExpiredException("NotAfter: ...")));
    assertThat(expired.tlsReason()).contains(TlsProblem.CertificateExpired);
    assertThat(expired.connectionProblem()).as("the server is up").isFalse();
    assertThat(connecting("PKIX path validation failed", validity(BasicReason.NOT_YET_VALID, null)).tlsReason())
        .contains(TlsProblem.CertificateNotYetValid);
    assertThat(new MysqlException(new SQLNonTransientConnectionException("(conn=11) SSL hostname verification failed :"
        + " DNS host \"localhost\" doesn't correspond to certificate CN \"127.0.0.1\"", "08000", -1,
        new SSLException("DNS host \"localhost\" doesn't correspond"))).tlsReason())
        .contains(TlsProblem.HostnameMismatch);
    assertThat(new MysqlException(new SQLException("SSL connection error: unknown", "HY000", 2026)).tlsReason())
        .as("CR_SSL_CONNECTION_ERROR that says no more").contains(TlsProblem.HandshakeFailed);

    MysqlException refused = new MysqlException(new SQLNonTransientConnectionException("Communications link failure",
        "08S01", 0, new ConnectException("Connection refused")));
    assertThat(refused.tlsReason()).isEmpty();
    assertThat(refused.connectionProblem()).isTrue();
  }
}
