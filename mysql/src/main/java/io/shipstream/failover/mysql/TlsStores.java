package io.shipstream.failover.mysql;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PKCS#12 stores made from a {@link SessionTls}'s PEM texts: the one form both drivers read for a
 * trust store and a client key store (MySQL Connector/J reads no PEM, MariaDB Connector/J no PEM
 * key). Written once per content into a directory only this process's user can read, and reused:
 * a rotated Secret has other content and so gets new stores, and the next connection uses them.
 */
final class TlsStores {
  record Stores(Path trustStore, Path keyStore, String password) {}

  private static final Map<String, Stores> WRITTEN = new ConcurrentHashMap<>();
  /** Protects the stores' content at rest only as much as the directory does; never logged. */
  private static final String PASSWORD = randomPassword();
  private static Path directory;

  private TlsStores() {}

  static Stores of(SessionTls tls) {
    String key = digest(tls.caPem() + "\u0000" + tls.certPem() + "\u0000" + tls.keyPem());
    return WRITTEN.computeIfAbsent(key, k -> write(k, tls));
  }

  private static Stores write(String name, SessionTls tls) {
    try {
      Path dir = directory();
      Path trust = null;
      Path keys = null;
      if (tls.caPem() != null && !tls.caPem().isBlank()) {
        KeyStore store = empty();
        int i = 0;
        for (Certificate c : certificates(tls.caPem(), "ca.crt")) {
          store.setCertificateEntry("ca-" + i++, c);
        }
        trust = save(store, dir.resolve(name + "-trust.p12"));
      }
      if (tls.certPem() != null) {
        KeyStore store = empty();
        List<Certificate> chain = certificates(tls.certPem(), "tls.crt");
        store.setKeyEntry("client", privateKey(tls.keyPem()), PASSWORD.toCharArray(),
            chain.toArray(new Certificate[0]));
        keys = save(store, dir.resolve(name + "-key.p12"));
      }
      return new Stores(trust, keys, PASSWORD);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the TLS stores", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot build the TLS stores: " + e.getMessage(), e);
    }
  }

  private static KeyStore empty() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }

  private static Path save(KeyStore store, Path file) throws IOException, GeneralSecurityException {
    Path tmp = Files.createTempFile(file.getParent(), "store", ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      store.store(out, PASSWORD.toCharArray());
    }
    return Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static List<Certificate> certificates(String pem, String what) throws GeneralSecurityException {
    List<Certificate> certs = new ArrayList<>(CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))));
    if (certs.isEmpty()) {
      throw new GeneralSecurityException(what + " holds no PEM certificate");
    }
    return certs;
  }

  /** A PKCS#8 key ("BEGIN PRIVATE KEY", what openssl 3 writes), RSA or EC. */
  private static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
      throw new GeneralSecurityException("tls.key must be a PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----); convert"
          + " it with 'openssl pkcs8 -topk8 -nocrypt'");
    }
    String body =
        pem.substring(pem.indexOf("-----BEGIN PRIVATE KEY-----") + 27, pem.indexOf("-----END PRIVATE KEY-----"))
            .replaceAll("\\s", "");
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body));
    GeneralSecurityException last = null;
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new GeneralSecurityException("tls.key is no RSA, EC or Ed25519 key", last);
  }

  private static synchronized Path directory() throws IOException {
    if (directory == null) {
      Path dir;
      try {
        dir = Files.createTempDirectory("mysql-tls-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        dir = Files.createTempDirectory("mysql-tls-");
      }
      dir.toFile().deleteOnExit();
      directory = dir;
    }
    return directory;
  }

  private static String digest(String text) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)))
          .substring(0, 32);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String randomPassword() {
    byte[] b = new byte[18];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
