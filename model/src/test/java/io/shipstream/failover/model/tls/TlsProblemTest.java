package io.shipstream.failover.model.tls;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What a message alone says ({@link TlsProblem#ofServerMessage}); exception chains are named in
 * ControlPlaneTlsTest (over real HTTPS) and MysqlExceptionTest (as the drivers report them).
 */
class TlsProblemTest {
  /**
   * A replica's IO thread says it failed in TLS but not why: these are the real texts for an
   * expired certificate, one not valid yet and a wrong CA alike (TlsIT).
   */
  @Test
  void aReplicasIoErrorIsATlsFailureThatNamesNoReason() {
    assertThat(TlsProblem.ofServerMessage("Error connecting to source 'repl@127.0.0.1:16802'. This was attempt 1/10,"
        + " with a delay of 2 seconds between attempts. Message: SSL connection error: error:0A000086:SSL"
        + " routines::certificate verify failed")).contains(TlsProblem.HandshakeFailed);
    assertThat(TlsProblem.ofServerMessage("error connecting to master 'repl@127.0.0.1:29509' - retry-time: 2"
        + "  maximum-retries: 100000  message: SSL connection error: error:00000000:lib(0)::reason(0)"))
        .contains(TlsProblem.HandshakeFailed);
  }

  @Test
  void theDriversOwnWordsAreNamed() {
    assertThat(TlsProblem.ofServerMessage("(conn=11) SSL hostname verification failed : DNS host \"localhost\""
        + " doesn't correspond to certificate CN \"127.0.0.1\"")).contains(TlsProblem.HostnameMismatch);
    assertThat(TlsProblem.ofServerMessage("Trying to connect with ssl, but ssl not enabled in the server"))
        .contains(TlsProblem.NotTls);
  }

  @Test
  void aMessageNotAboutTlsIsNone() {
    assertThat(TlsProblem.ofServerMessage("error reconnecting to master 'repl@iad:3306' - Can't connect to server"
        + " (111)")).isEmpty();
    assertThat(TlsProblem.ofServerMessage(null)).isEmpty();
  }
}
