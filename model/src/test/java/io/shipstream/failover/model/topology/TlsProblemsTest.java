package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.Specs.site;
import static io.shipstream.failover.model.Specs.withSites;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.tls.TlsProblem;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows of {@link TlsProblems}: only a poll that failed in its TLS handshake is a TLS problem. */
class TlsProblemsTest {
  private static final Instant AT = Instant.parse("2026-12-02T00:00:00Z");
  private static final GroupConfig CONFIG =
      GroupConfig.resolve(withSites(List.of(site("iad", null), site("pdx", null))));

  private static SiteObservation latest(Probe p) {
    return new SiteObservation(SiteState.WRITABLE, p, null);
  }

  @Test
  void aPollFailedInItsTlsHandshakeNamesTheSiteAndTheReason() {
    Probe tls = Probe.tlsError("pdx", TlsProblem.CertificateExpired, "Communications link failure", AT);
    List<TlsProblems.Problem> problems = TlsProblems.problems(CONFIG, Map.of("iad", latest(new Probe("iad", true, false,
        null, null, false, null, null, AT)), "pdx", latest(tls)));
    assertThat(problems).singleElement().satisfies(p -> {
      assertThat(p.site()).isEqualTo("pdx");
      assertThat(p.reason()).isEqualTo("CertificateExpired");
      assertThat(p.message()).startsWith("site 'pdx': TLS: CertificateExpired: its certificate has expired"
          + " (Communications link failure)").contains("not counted as lost");
    });
  }

  @Test
  void theGroupsTlsSettingsThatCannotBeReadAreAProblemOfTheirOwnName() {
    Probe unreadable = Probe.unreachable("pdx", Probe.TLS_ERROR + "Secret shop/orders-tls has no key ca.crt", AT);
    assertThat(TlsProblems.problems(CONFIG, Map.of("pdx", latest(unreadable)))).singleElement()
        .satisfies(p -> assertThat(p.reason()).isEqualTo("TlsSettingsUnavailable"));
    for (TlsProblem each : TlsProblem.values()) {
      assertThat(Probe.tlsReason(Probe.tlsError("iad", each, "x", AT).error())).contains(each.name());
    }
  }

  @Test
  void anUnreachableServerOrAnUnpolledSiteIsNone() {
    assertThat(TlsProblems.problems(CONFIG, Map.of("iad", latest(Probe.unreachable("iad", "Connection refused", AT)))))
        .isEmpty();
    assertThat(TlsProblems.problems(CONFIG, Map.of())).isEmpty();
  }
}
