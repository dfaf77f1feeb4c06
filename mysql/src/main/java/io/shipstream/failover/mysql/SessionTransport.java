package io.shipstream.failover.mysql;

/**
 * What a session's connection travels over, as the server sees it: {@code plaintext}, or {@code
 * TLS (<cipher>)}. One method, so that the TLS the product is to use for every session (DESIGN,
 * "Production") extends what is reported here and nowhere else.
 */
public final class SessionTransport {
  private SessionTransport() {}

  /** One statement; {@code Ssl_cipher} is the same status variable on both flavors, empty without TLS. */
  public static String describe(MysqlSession session) throws MysqlException {
    String cipher = session.queryRows("SHOW SESSION STATUS LIKE 'Ssl_cipher'").stream()
        .map(row -> row.get("Value")).findFirst().orElse(null);
    return cipher == null || cipher.isBlank() ? "plaintext" : "TLS (" + cipher + ")";
  }
}
