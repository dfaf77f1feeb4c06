package io.shipstream.failover.runtime;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Why a control-plane request failed in TLS, as a reason a condition, an Event and a metric label
 * carry: a certificate that expired or is not yet valid, one no trusted CA signed, one whose names
 * do not include the host asked, a plaintext peer, or any other handshake failure. A request that
 * failed otherwise (refused, timed out) is no TLS problem and is told apart, so that a TLS error is
 * reported as what it is rather than as an unreachable site.
 */
public enum TlsProblem {
  CertificateExpired("its certificate has expired"),
  CertificateNotYetValid("its certificate is not valid yet"),
  UnknownCertificateAuthority("its certificate is not signed by the CA this process trusts (TLS_CA_FILE)"),
  HostnameMismatch("its certificate does not name the host it was asked at"),
  NotTls("it does not speak TLS on that port (a plaintext server, or the wrong port)"),
  HandshakeFailed("the TLS handshake failed");

  private final String sentence;

  TlsProblem(String sentence) {
    this.sentence = sentence;
  }

  /** Why, as the end of a sentence about the server ("the sidecar of site x: ..."). */
  public String sentence() {
    return sentence;
  }

  /** The TLS problem among {@code failure} and its causes; empty for a failure that is not about TLS. */
  public static Optional<TlsProblem> of(Throwable failure) {
    TlsProblem found = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      TlsProblem here = null;
      String message = String.valueOf(t.getMessage());
      if (t instanceof CertificateExpiredException) {
        here = CertificateExpired;
      } else if (t instanceof CertificateNotYetValidException) {
        here = CertificateNotYetValid;
      } else if (t instanceof CertPathValidatorException v && v.getReason() == BasicReason.EXPIRED) {
        here = CertificateExpired;
      } else if (t instanceof CertPathValidatorException v && v.getReason() == BasicReason.NOT_YET_VALID) {
        here = CertificateNotYetValid;
      } else if (t instanceof java.security.cert.CertificateException && message.startsWith("No subject alternative")) {
        here = HostnameMismatch;
      } else if (t instanceof CertPathValidatorException || t instanceof CertPathBuilderException) {
        here = UnknownCertificateAuthority;
      } else if (t instanceof SSLException) {
        here = message.contains("Unsupported or unrecognized SSL message") ? NotTls : HandshakeFailed;
      }
      // The most specific wins: the order of the constants, whichever wraps which.
      if (here != null && (found == null || here.ordinal() < found.ordinal())) {
        found = here;
      }
    }
    return Optional.ofNullable(found);
  }
}
