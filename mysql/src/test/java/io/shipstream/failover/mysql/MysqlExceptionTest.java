package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import org.junit.jupiter.api.Test;

class MysqlExceptionTest {

  @Test
  void serverGoneAwayCountsAsAConnectionProblem() {
    assertThat(MysqlException.isConnectionProblem(new SQLException("MySQL server has gone away", "HY000", 2006))).isTrue();
    assertThat(MysqlException.isConnectionProblem(new SQLException("Duplicate entry", "23000", 1062))).isFalse();
    assertThat(new MysqlException(new SQLException("MySQL server has gone away", "HY000", 2006)).connectionProblem())
        .isTrue();
  }

  @Test
  void aServerErrorIsDescribedWithItsCode() {
    MysqlException e = new MysqlException(new SQLSyntaxErrorException("Access denied; you need the SUPER privilege", "42000", 1227));

    assertThat(e.errorCode()).isEqualTo(1227);
    assertThat(e.describe()).isEqualTo("error 1227: Access denied; you need the SUPER privilege");
  }

  @Test
  void theFlavorComesFromTheVersionString() {
    assertThat(SqlDialect.forVersion("10.11.19-MariaDB-0+deb12u1-log").flavor()).isEqualTo("MariaDB");
    assertThat(SqlDialect.forVersion("8.4.3").flavor()).isEqualTo("MySQL");
  }
}
