package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.GroupConditions;
import java.net.ConnectException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Which failures to read a sidecar are the control plane's, and what the group's Degraded condition says of them. */
class ControlPlaneProblemTest {
  @Test
  void aTlsFailureNamesTheSiteAndWhy() {
    SSLHandshakeException expired = new SSLHandshakeException("PKIX path validation failed");
    expired.initCause(new CertificateExpiredException("NotAfter: Tue Dec 01 00:00:00 UTC 2026"));

    GroupConditions.Problem problem = StartupChecks.controlPlaneProblem("pdx", expired);

    assertThat(problem.reason()).isEqualTo("SidecarTlsError");
    assertThat(problem.message()).contains("site pdx", "CertificateExpired", "nothing is fenced");
  }

  @Test
  void aRefusedOrUnreadableCredentialIsACredentialProblem() {
    assertThat(StartupChecks.controlPlaneProblem("iad", new SidecarStatusReader.Refused(403, "refused")))
        .satisfies(p -> {
          assertThat(p.reason()).isEqualTo("SidecarCredentialProblem");
          assertThat(p.message()).contains("site iad", "HTTP 403", "tokenSecretRef");
        });
    assertThat(StartupChecks.controlPlaneProblem("iad",
        new SidecarStatusReader.CredentialUnavailable("Secret shop/orders-token does not exist")).message())
        .contains("Secret shop/orders-token does not exist");
  }

  @Test
  void aSidecarThatIsDownIsNoControlPlaneProblem() {
    assertThat(StartupChecks.controlPlaneProblem("iad", new ConnectException("Connection refused"))).isNull();
  }
}
