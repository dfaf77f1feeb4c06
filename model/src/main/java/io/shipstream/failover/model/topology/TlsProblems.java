package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether the watcher's latest poll of a site failed in its TLS handshake (a certificate the CA
 * did not sign, expired or not yet valid, a name that does not match, a server that offers no TLS
 * where the group requires it, a client certificate it refuses). Such a server was reached and is
 * up: it must not count as lost, so while any site's poll fails so, the watcher acts on nothing
 * (adopts, fences, fails over nothing: a failover would rest on readings it cannot take as
 * configured) and reports each such site, as {@code Degraded} with reason {@code TlsError}, a
 * Warning Event and a metric.
 *
 * <pre>
 * | a site's latest poll                                 | problem                                            |
 * |------------------------------------------------------|----------------------------------------------------|
 * | failed with an error marked {@link Probe#TLS_ERROR}  | the site, {@link Probe#tlsReason}, "site 'X': TLS: ..., nothing is fenced ..." |
 * | answered, failed otherwise, or not polled yet        | none                                               |
 * </pre>
 */
public final class TlsProblems {
  private TlsProblems() {}

  /**
   * One site's problem.
   *
   * @param site the site whose server refused the handshake
   * @param reason a {@link io.shipstream.failover.model.tls.TlsProblem} name (CertificateExpired, ...), or
   *     TlsSettingsUnavailable (see {@link Probe#tlsReason}): a metric's label
   * @param message the sentence for the condition and the Event, naming the site and the reason
   */
  public record Problem(String site, String reason, String message) {}

  /** Every problem, in the order of the spec's sites; empty when no poll failed in its TLS handshake. */
  public static List<Problem> problems(GroupConfig config, Map<String, SiteObservation> observations) {
    List<Problem> problems = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      SiteObservation o = observations.get(site.name());
      Probe latest = o == null ? null : o.latest();
      if (latest != null && !latest.reachable() && Probe.isTlsError(latest.error())) {
        problems.add(new Problem(site.name(), Probe.tlsReason(latest.error()).orElseThrow(), "site '" + site.name()
            + "': " + latest.error() + "; its server is up, so it is not counted as lost, and nothing is fenced or"
            + " failed over until the certificates are fixed"));
      }
    }
    return problems;
  }
}
