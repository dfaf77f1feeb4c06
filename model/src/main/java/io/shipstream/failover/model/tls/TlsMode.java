package io.shipstream.failover.model.tls;

import java.util.Locale;

/**
 * How a connection the product opens or sets up is encrypted, in the words MySQL's and MariaDB's
 * clients use. There is no {@code preferred}: it falls back to plaintext when the server offers no
 * TLS, so a connection could silently be weaker than configured; it is refused with that reason.
 *
 * <pre>
 * | mode            | encrypted | server's chain checked against the CA | server's name checked |
 * |-----------------|-----------|----------------------------------------|-----------------------|
 * | disabled        | no        | no                                     | no                    |
 * | required        | yes       | no                                     | no                    |
 * | verify-ca       | yes       | yes                                    | no                    |
 * | verify-identity | yes       | yes                                    | yes                   |
 * </pre>
 */
public enum TlsMode {
  DISABLED("disabled"),
  REQUIRED("required"),
  VERIFY_CA("verify-ca"),
  VERIFY_IDENTITY("verify-identity");

  private final String display;

  TlsMode(String display) {
    this.display = display;
  }

  /** The spelling of the spec and of the docs. */
  public String display() {
    return display;
  }

  public boolean encrypted() {
    return this != DISABLED;
  }

  public boolean verifiesCa() {
    return this == VERIFY_CA || this == VERIFY_IDENTITY;
  }

  public boolean verifiesIdentity() {
    return this == VERIFY_IDENTITY;
  }

  /**
   * The mode a spec or an environment variable names; null or blank is {@code fallback}.
   *
   * @throws IllegalArgumentException naming the value and the accepted ones; for {@code preferred},
   *     saying why it is refused
   */
  public static TlsMode parse(String value, TlsMode fallback) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    String v = value.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    for (TlsMode m : values()) {
      if (m.display.equals(v)) {
        return m;
      }
    }
    if (v.equals("preferred")) {
      throw new IllegalArgumentException("TLS mode 'preferred' is refused: it falls back to plaintext when the server"
          + " offers no TLS; use required, verify-ca or verify-identity (or disabled)");
    }
    throw new IllegalArgumentException(
        "TLS mode '" + value + "' is not one of disabled, required, verify-ca, verify-identity");
  }
}
