package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made at test time with Debian's {@code openssl} (never committed): a CA, a server
 * certificate it signs whose only name is the address the test servers listen on ({@code
 * IP:127.0.0.1}, so {@code localhost} does not match it), a client certificate, and a second,
 * unrelated CA (a client trusting it refuses the servers). Keys are PKCS#8, as openssl 3 writes
 * them, valid for two days.
 *
 * <p>For MySQL the files must be inside its root, where the chrooted {@code mysqld} can read them
 * ({@link #forFlavor}); {@link #serverPath} names a file as the flavor's server sees it.
 */
public final class TestCertificates {
  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /** Generates the files into a new directory where {@code flavor}'s servers can read them. */
  public static TestCertificates forFlavor(Flavor flavor, Path baseDir) {
    try {
      Path parent = flavor == Flavor.MYSQL ? MySqlTemplate.runDirectory() : baseDir;
      Files.createDirectories(parent);
      return generate(Files.createTempDirectory(parent.toAbsolutePath(), "tls-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Generates the files into {@code dir}. */
  public static TestCertificates generate(Path dir) {
    TestCertificates c = new TestCertificates(dir.toAbsolutePath());
    c.ca("ca", "failover-test-ca");
    c.ca("other-ca", "unrelated-test-ca");
    c.signed("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    c.signed("client", "failover-client", "extendedKeyUsage=clientAuth\n");
    return c;
  }

  public Path directory() {
    return dir;
  }

  public Path caCert() {
    return dir.resolve("ca.crt");
  }

  public Path otherCaCert() {
    return dir.resolve("other-ca.crt");
  }

  public Path serverCert() {
    return dir.resolve("server.crt");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }

  public Path clientCert() {
    return dir.resolve("client.crt");
  }

  public Path clientKey() {
    return dir.resolve("client.key");
  }

  /** {@code file} as a server of {@code flavor} sees it (MySQL's from inside its root). */
  public static String serverPath(Flavor flavor, Path file) {
    return flavor == Flavor.MYSQL ? MySqlTemplate.insideRoot(file) : file.toAbsolutePath().toString();
  }

  /**
   * The options that give a server of {@code flavor} these certificates; with {@code
   * requireSecureTransport}, it refuses every connection but TLS and the Unix socket.
   */
  public List<String> serverOptions(Flavor flavor, boolean requireSecureTransport) {
    List<String> options = new ArrayList<>(List.of("--ssl-ca=" + serverPath(flavor, caCert()),
        "--ssl-cert=" + serverPath(flavor, serverCert()), "--ssl-key=" + serverPath(flavor, serverKey())));
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

  private void ca(String name, String cn) {
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".crt",
        "-days", "2", "-subj", "/CN=" + cn);
  }

  private void signed(String name, String cn, String extensions) {
    try {
      Files.writeString(dir.resolve(name + ".ext"), extensions);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj",
        "/CN=" + cn);
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        name + ".crt", "-days", "2", "-extfile", name + ".ext");
  }

  private void openssl(String... args) {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("openssl.log").toFile()).start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: "
            + Files.readString(dir.resolve("openssl.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run openssl", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
