package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

/** Which failures of a kept session are asked again on a new connection: not the timeouts. */
class KeptSessionsTest {

  @Test
  void aTimeoutAnywhereInTheCausesIsATimeoutAndAResetIsNot() {
    SQLNonTransientConnectionException readTimedOut =
        new SQLNonTransientConnectionException("Socket error", "08000", new SocketTimeoutException("Read timed out"));
    assertThat(KeptSessions.tookTimeout(new MysqlException(readTimedOut))).isTrue();
    assertThat(KeptSessions.tookTimeout(new MysqlException(new SQLTimeoutException("timeout")))).isTrue();

    SQLNonTransientConnectionException reset =
        new SQLNonTransientConnectionException("Socket error", "08000", new SocketException("Connection reset"));
    assertThat(KeptSessions.tookTimeout(new MysqlException(reset))).isFalse();
    assertThat(KeptSessions.tookTimeout(new MysqlException("the server answered its variables with no row"))).isFalse();
  }
}
