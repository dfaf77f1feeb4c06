package io.shipstream.failover.activities.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.temporal.failure.ApplicationFailure;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLSyntaxErrorException;
import org.junit.jupiter.api.Test;

class MysqlFailuresTest {
  private static final MysqlTarget TARGET =
      new MysqlTarget(new GroupRef("shop", "orders"), "iad", "10.0.1.10", 3306, "mysql-credentials");

  @Test
  void aLostConnectionIsUnreachableAndRetryable() {
    ApplicationFailure failure =
        MysqlFailures.of("fence", TARGET,
            new MysqlException(new SQLNonTransientConnectionException("Socket fail to connect", "08000")));

    assertThat(failure.getType()).isEqualTo("Unreachable");
    assertThat(failure.isNonRetryable()).isFalse();
    assertThat(failure.getOriginalMessage())
        .isEqualTo("fence: cannot reach iad (10.0.1.10:3306): Socket fail to connect");
  }

  /** A server whose certificate expired is up: not Unreachable, not retried, and the reason is said. */
  @Test
  void anExpiredCertificateIsANonRetryableTlsErrorThatSaysSo() {
    javax.net.ssl.SSLHandshakeException handshake = new javax.net.ssl.SSLHandshakeException("PKIX path validation");
    handshake.initCause(new java.security.cert.CertificateExpiredException("NotAfter: 2026-12-01"));
    ApplicationFailure failure = MysqlFailures.of("fence", TARGET, new MysqlException(
        new SQLNonTransientConnectionException("Communications link failure", "08S01", 0, handshake)));

    assertThat(failure.getType()).isEqualTo("MysqlError");
    assertThat(failure.isNonRetryable()).isTrue();
    assertThat(failure.getOriginalMessage()).isEqualTo("fence on iad (10.0.1.10:3306) failed: TLS: CertificateExpired:"
        + " its certificate has expired (Communications link failure)");
  }

  @Test
  void aServerErrorIsAMysqlErrorWithItsCode() {
    ApplicationFailure failure =
        MysqlFailures.of("fence", TARGET,
            new MysqlException(
                new SQLSyntaxErrorException("Access denied; you need the SUPER privilege", "42000", 1227)));

    assertThat(failure.getType()).isEqualTo("MysqlError");
    assertThat(failure.getOriginalMessage()).contains("error 1227", "SUPER");
  }
}
