package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.Specs.site;
import static io.shipstream.failover.model.Specs.withSites;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rows of {@link TlsProblems}: only a poll that failed in its TLS handshake is a TLS problem. */
class TlsProblemsTest {
  private static final Instant AT = Instant.parse("2026-12-02T00:00:00Z");
  private static final GroupConfig CONFIG = GroupConfig.resolve(withSites(List.of(site("iad", null), site("pdx", null))));

  private static SiteObservation latest(Probe p) {
    return new SiteObservation(SiteState.WRITABLE, p, null);
  }

  @Test
  void aPollFailedInItsTlsHandshakeNamesTheSiteAndTheReason() {
    Probe tls = Probe.unreachable("pdx", Probe.TLS_ERROR + "PKIX path building failed", AT);
    List<String> problems = TlsProblems.problems(CONFIG, Map.of("iad", latest(new Probe("iad", true, false, null, null,
        false, null, null, AT)), "pdx", latest(tls)));
    assertThat(problems).singleElement().asString().startsWith("site 'pdx': TLS: PKIX path building failed")
        .contains("not counted as lost");
  }

  @Test
  void anUnreachableServerOrAnUnpolledSiteIsNone() {
    assertThat(TlsProblems.problems(CONFIG, Map.of("iad", latest(Probe.unreachable("iad", "Connection refused", AT)))))
        .isEmpty();
    assertThat(TlsProblems.problems(CONFIG, Map.of())).isEmpty();
  }
}
