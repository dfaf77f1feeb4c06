package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made for a test, in memory and written under the test's own directory: a CA, and
 * server certificates it signs for the names a test connects to (IP addresses become IP SANs),
 * valid now or over any window (an expired one, one not valid yet). Keys are written as PKCS#8
 * PEM, the form the product reads; nothing here is ever committed.
 *
 * <p>For database servers, {@link #forDatabases} makes the set the tests' servers and clients use
 * ({@link DatabaseCertificates}); for MySQL the files must be inside its root, where the chrooted
 * {@code mysqld} can read them, and {@link #serverPath} names a file as the flavor's server sees it.
 */
public final class TestAuthority {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** A CA: its certificate in {@link #certFile} signs whatever {@link #issue} makes. */
  public static final class Authority {
    private final KeyPair keys;
    private final X500Name name;
    private final Path certFile;

    private Authority(KeyPair keys, X500Name name, Path certFile) {
      this.keys = keys;
      this.name = name;
      this.certFile = certFile;
    }

    /** The CA's certificate, PEM: what a client trusts (TLS_CA_FILE). */
    public Path certFile() {
      return certFile;
    }

    /** A server certificate for {@code names}, valid for a day from an hour ago, under {@code dir/prefix.{crt,key}}. */
    public Issued issue(Path dir, String prefix, String... names) {
      Instant now = Instant.now();
      return issue(dir, prefix, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), names);
    }

    /** A server certificate for {@code names} valid from {@code notBefore} to {@code notAfter}. */
    public Issued issue(Path dir, String prefix, Instant notBefore, Instant notAfter, String... names) {
      try {
        KeyPair leaf = keyPair();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(), Date.from(notBefore),
            Date.from(notAfter), new X500Name("CN=" + names[0]), leaf.getPublic());
        List<GeneralName> sans = new ArrayList<>();
        for (String n : names) {
          sans.add(new GeneralName(n.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress : GeneralName.dNSName, n));
        }
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(sans.toArray(GeneralName[]::new)));
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
        Files.createDirectories(dir);
        Path certFile = dir.resolve(prefix + ".crt");
        Path keyFile = dir.resolve(prefix + ".key");
        write(certFile, pem(cert));
        write(keyFile, pem(new JcaPKCS8Generator(leaf.getPrivate(), null).generate()));
        return new Issued(certFile, keyFile);
      } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
        throw new IllegalStateException(e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A certificate and its key, as files. */
  public record Issued(Path certFile, Path keyFile) {}

  /**
   * What a test's database servers and the product's clients use, in one directory: a CA, a
   * server certificate it signs whose only name is the address the test servers listen on ({@code
   * IP:127.0.0.1}, so {@code localhost} does not match it), a client certificate, and a second,
   * unrelated CA (a client trusting it refuses the servers). {@link #ca} issues more (a server
   * certificate that expired, one not valid yet).
   */
  public record DatabaseCertificates(Path directory, Authority ca, Authority otherCa, Issued server, Issued client) {
    public Path caCert() {
      return ca.certFile();
    }

    public Path otherCaCert() {
      return otherCa.certFile();
    }

    public Path serverCert() {
      return server.certFile();
    }

    public Path serverKey() {
      return server.keyFile();
    }

    public Path clientCert() {
      return client.certFile();
    }

    public Path clientKey() {
      return client.keyFile();
    }

    /**
     * The options that give a server of {@code flavor} this CA and server certificate; with {@code
     * requireSecureTransport}, it refuses every connection but TLS and the Unix socket.
     */
    public List<String> serverOptions(Flavor flavor, boolean requireSecureTransport) {
      return TestAuthority.serverOptions(flavor, caCert(), server, requireSecureTransport);
    }
  }

  private TestAuthority() {}

  /**
   * Makes a new {@link DatabaseCertificates} in a new directory where {@code flavor}'s servers can
   * read it (under {@code baseDir}, or for MySQL inside its root), valid for the CA's 30 days.
   */
  public static DatabaseCertificates forDatabases(Flavor flavor, Path baseDir) {
    try {
      Path parent = flavor == Flavor.MYSQL ? MySqlTemplate.runDirectory() : baseDir;
      Files.createDirectories(parent);
      Path dir = Files.createTempDirectory(parent.toAbsolutePath(), "tls-");
      Authority ca = authority(dir, "ca");
      Authority other = authority(dir, "other-ca");
      Instant now = Instant.now();
      Instant from = now.minus(Duration.ofHours(1));
      Instant to = now.plus(Duration.ofDays(29));
      return new DatabaseCertificates(dir, ca, other, ca.issue(dir, "server", from, to, "127.0.0.1"),
          ca.issue(dir, "client", from, to, "failover-client"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code file} as a server of {@code flavor} sees it (MySQL's from inside its root). */
  public static String serverPath(Flavor flavor, Path file) {
    return flavor == Flavor.MYSQL ? MySqlTemplate.insideRoot(file) : file.toAbsolutePath().toString();
  }

  /**
   * The options that give a server of {@code flavor} the CA {@code caCert} and the certificate
   * {@code server}; with {@code requireSecureTransport}, it refuses every connection but TLS and the
   * Unix socket.
   */
  public static List<String> serverOptions(Flavor flavor, Path caCert, Issued server, boolean requireSecureTransport) {
    List<String> options = new ArrayList<>(List.of("--ssl-ca=" + serverPath(flavor, caCert),
        "--ssl-cert=" + serverPath(flavor, server.certFile()), "--ssl-key=" + serverPath(flavor, server.keyFile())));
    if (requireSecureTransport) {
      options.add("--require-secure-transport=ON");
    }
    return options;
  }

  /** The PEM text of {@code file}. */
  public static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new CA named {@code cn}, its certificate written to {@code dir/<cn>.crt}. */
  public static Authority authority(Path dir, String cn) {
    try {
      KeyPair keys = keyPair();
      X500Name name = new X500Name("CN=" + cn);
      Instant now = Instant.now();
      JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(30))), name, keys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
      Path file = dir.resolve(cn + ".crt");
      Files.createDirectories(dir);
      write(file, pem(cert));
      return new Authority(keys, name, file);
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Replaces {@code target} with {@code source}'s content the way a Secret volume does: written
   * beside it, then moved over it in one step, so a reader sees the old file or the new one.
   */
  public static void replace(Path source, Path target) {
    try {
      Path tmp = target.resolveSibling(target.getFileName() + ".new");
      Files.copy(source, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIAL.incrementAndGet());
  }

  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  private static void write(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
