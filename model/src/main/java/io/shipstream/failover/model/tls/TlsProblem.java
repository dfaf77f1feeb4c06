package io.shipstream.failover.model.tls;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Why a TLS handshake failed, as a reason a condition, an Event and a metric label carry: a
 * certificate that expired or is not yet valid, one no trusted CA signed, one whose names do not
 * include the host asked, a plaintext peer, or any other handshake failure. The same for the
 * control plane's HTTPS and for the product's MySQL sessions (both drivers verify the server with
 * the JDK's checks, so the same exceptions say why). A failure otherwise (refused, timed out) is no
 * TLS problem and is told apart, so that a TLS error is reported as what it is rather than as an
 * unreachable site.
 *
 * <p>A replica's IO thread does not say why: mysqld 9.7 reports "certificate verify failed" and
 * mariadbd 10.11 "error:00000000:lib(0)::reason(0)" for an expired certificate and a wrong CA alike
 * (seen in TlsIT), both as error 2026: {@link #ofServerMessage} finds a TLS failure there and no more.
 */
public enum TlsProblem {
  CertificateExpired("its certificate has expired"),
  CertificateNotYetValid("its certificate is not valid yet"),
  UnknownCertificateAuthority("its certificate is not signed by the CA trusted for it (TLS_CA_FILE for the control"
      + " plane, the ca.crt of tls.sessions.secretRef for MySQL)"),
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

  /** "CertificateExpired: its certificate has expired ({@code detail})": the reason, why, and the client's words. */
  public String describe(String detail) {
    return name() + ": " + sentence + " (" + detail + ")";
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
      } else if (t instanceof java.security.cert.CertificateException && (message.startsWith("No subject alternative")
          || message.startsWith("Server identity verification failed"))) {
        // The JDK's check, and Connector/J's own under sslMode=VERIFY_IDENTITY.
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

  /**
   * The TLS problem a driver's own words name, where no exception type does: MariaDB Connector/J's
   * "SSL hostname verification failed" and "Trying to connect with ssl, but ssl not enabled in the
   * server"; {@link #HandshakeFailed} for a text about TLS that names no reason (a replica's IO
   * thread: see above), empty for one that is not about TLS.
   */
  public static Optional<TlsProblem> ofServerMessage(String message) {
    String m = message == null ? "" : message.toLowerCase(java.util.Locale.ROOT);
    if (m.contains("hostname verification failed")) {
      return Optional.of(HostnameMismatch);
    }
    if (m.contains("ssl not enabled")) {
      return Optional.of(NotTls);
    }
    if (m.contains("ssl") || m.contains("tls") || m.contains("certificate")) {
      return Optional.of(HandshakeFailed);
    }
    return Optional.empty();
  }
}
