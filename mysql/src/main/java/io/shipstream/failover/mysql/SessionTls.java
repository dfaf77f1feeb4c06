package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.TlsMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The TLS of the product's own sessions to a group's servers: the mode, and the PEM texts of the
 * CA and of an optional client certificate and its key (from the group's Secret in the worker and
 * the watcher, from mounted files in the sidecar). {@link #driverProperties} gives both drivers
 * the same meaning:
 *
 * <pre>
 * | mode            | MySQL Connector/J sslMode | MariaDB Connector/J sslMode |
 * |-----------------|---------------------------|-----------------------------|
 * | disabled        | DISABLED                  | disable                     |
 * | required        | REQUIRED                  | trust                       |
 * | verify-ca       | VERIFY_CA                 | verify-ca                   |
 * | verify-identity | VERIFY_IDENTITY           | verify-full                 |
 * </pre>
 *
 * With TLS on, the CA is the only one trusted (the JVM's own trust store is not fallen back to,
 * so a server whose certificate another CA signed is refused), and {@code
 * allowPublicKeyRetrieval} is off: the password travels inside TLS and the server's RSA key is
 * never asked for, so a man in the middle cannot hand out its own.
 *
 * @param mode how the sessions are encrypted
 * @param caPem the CA certificate(s), PEM; needed from verify-ca on
 * @param certPem the client certificate chain, PEM; null for none
 * @param keyPem its PKCS#8 private key, PEM; null for none
 */
public record SessionTls(TlsMode mode, String caPem, String certPem, String keyPem) {
  public static final SessionTls NONE = new SessionTls(TlsMode.DISABLED, null, null, null);

  public SessionTls {
    if (mode == null) {
      mode = TlsMode.DISABLED;
    }
    if (mode.verifiesCa() && (caPem == null || caPem.isBlank())) {
      throw new IllegalArgumentException("TLS mode " + mode.display() + " needs a CA certificate (ca.crt)");
    }
    if ((certPem == null) != (keyPem == null)) {
      throw new IllegalArgumentException("a client certificate (tls.crt) needs its key (tls.key), and the reverse");
    }
  }

  /**
   * The sidecar's: the mode and the files its own mounts hold (null or blank: none).
   *
   * @throws IllegalArgumentException naming the file that cannot be read, or the mode refused
   */
  public static SessionTls fromFiles(String mode, String caFile, String certFile, String keyFile) {
    return new SessionTls(TlsMode.parse(mode, TlsMode.DISABLED), read(caFile), read(certFile), read(keyFile));
  }

  private static String read(String file) {
    if (file == null || file.isBlank()) {
      return null;
    }
    try {
      return Files.readString(Path.of(file), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The driver properties of this mode for {@code flavor}'s driver; the stores they name are
   * written once per content (see {@link TlsStores}).
   *
   * @throws UncheckedIOException when the stores cannot be written
   * @throws IllegalArgumentException when the PEM texts cannot be read as a certificate and a key
   */
  public Map<String, String> driverProperties(ServerFlavor flavor) {
    Map<String, String> p = new HashMap<>();
    if (flavor == ServerFlavor.MARIADB) {
      p.put("sslMode", switch (mode) {
        case DISABLED -> "disable";
        case REQUIRED -> "trust";
        case VERIFY_CA -> "verify-ca";
        case VERIFY_IDENTITY -> "verify-full";
      });
    } else {
      p.put("sslMode", mode.name());
    }
    if (!mode.encrypted()) {
      return p;
    }
    p.put("allowPublicKeyRetrieval", "false");
    TlsStores.Stores stores = TlsStores.of(this);
    if (stores.trustStore() != null) {
      if (flavor == ServerFlavor.MARIADB) {
        p.put("trustStore", stores.trustStore().toString());
        p.put("trustStoreType", "PKCS12");
        p.put("trustStorePassword", stores.password());
        p.put("fallbackToSystemTrustStore", "false");
      } else {
        p.put("trustCertificateKeyStoreUrl", stores.trustStore().toUri().toString());
        p.put("trustCertificateKeyStoreType", "PKCS12");
        p.put("trustCertificateKeyStorePassword", stores.password());
        p.put("fallbackToSystemTrustStore", "false");
      }
    }
    if (stores.keyStore() != null) {
      if (flavor == ServerFlavor.MARIADB) {
        p.put("keyStore", stores.keyStore().toString());
        p.put("keyStoreType", "PKCS12");
        p.put("keyStorePassword", stores.password());
        p.put("fallbackToSystemKeyStore", "false");
      } else {
        p.put("clientCertificateKeyStoreUrl", stores.keyStore().toUri().toString());
        p.put("clientCertificateKeyStoreType", "PKCS12");
        p.put("clientCertificateKeyStorePassword", stores.password());
        p.put("fallbackToSystemKeyStore", "false");
      }
    }
    return p;
  }

  @Override
  public String toString() {
    return "SessionTls[" + mode.display() + (caPem != null ? ", CA" : "") + (certPem != null ? ", client cert" : "")
        + "]";
  }
}
