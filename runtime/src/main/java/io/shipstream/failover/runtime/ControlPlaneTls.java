package io.shipstream.failover.runtime;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTPS for the control plane (the watcher's {@code /active-site}, the sidecars' endpoints and
 * their calls to each other and to the watcher), from mounted PEM files: TLS_CERT_FILE (the
 * certificate chain), TLS_KEY_FILE (its PKCS#8 key, {@code BEGIN PRIVATE KEY}: cert-manager's
 * {@code privateKey.encoding: PKCS8}), TLS_CA_FILE (the CA a client verifies the servers with; the
 * JDK's trusted roots without it). A process serves HTTPS, on HTTPS_PORT, when a certificate is
 * mounted. Every file is read again when it changes (cert-manager renews in place, a Secret volume
 * swaps its files), at the next handshake: rotation needs no restart. A file that changed but
 * cannot be read keeps the last good key or CA, so a half-written renewal never stops the
 * endpoints. Clients verify the server's certificate and its name against the URL's host (the
 * JDK's HTTP client does both by default).
 */
public final class ControlPlaneTls {
  private static final Logger LOG = LoggerFactory.getLogger(ControlPlaneTls.class);
  public static final String TLS_CERT_FILE = "TLS_CERT_FILE";
  public static final String TLS_KEY_FILE = "TLS_KEY_FILE";
  public static final String TLS_CA_FILE = "TLS_CA_FILE";
  public static final String HTTPS_PORT = "HTTPS_PORT";

  private final Path cert;
  private final Path key;
  private final Path ca;
  private volatile SSLContext server;
  private volatile SSLContext client;

  private ControlPlaneTls(Path cert, Path key, Path ca) {
    this.cert = cert;
    this.key = key;
    this.ca = ca;
  }

  /** The settings of a process that serves HTTPS on {@code defaultHttpsPort} when a certificate is mounted. */
  public static List<Setting> settings(int defaultHttpsPort) {
    return List.of(Setting.of(TLS_CERT_FILE, null), Setting.of(TLS_KEY_FILE, null), Setting.of(TLS_CA_FILE, null),
        Setting.of(HTTPS_PORT, Integer.toString(defaultHttpsPort)));
  }

  /** No certificate, and the JDK's roots for an https URL: what a process gets with nothing mounted. */
  public static ControlPlaneTls none() {
    return new ControlPlaneTls(null, null, null);
  }

  /** Files given directly (tests, the playground); {@code cert} and {@code key} both or neither. */
  public static ControlPlaneTls of(Path cert, Path key, Path ca) {
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(TLS_CERT_FILE + " and " + TLS_KEY_FILE + " go together");
    }
    ControlPlaneTls tls = new ControlPlaneTls(cert, key, ca);
    // Read once now, so that a wrong path or an unusable key stops the process at start.
    if (cert != null) {
      tls.serverContext();
    }
    tls.clientContext();
    return tls;
  }

  /** From the settings; every problem (a lone cert or key, an unreadable file) is an error of {@code r}. */
  public static ControlPlaneTls read(ConfigReader r) {
    Path cert = r.file(TLS_CERT_FILE);
    Path key = r.file(TLS_KEY_FILE);
    Path ca = r.file(TLS_CA_FILE);
    if ((cert == null) != (key == null)) {
      r.error(TLS_CERT_FILE + " and " + TLS_KEY_FILE + " must be given together");
      return none();
    }
    try {
      return of(cert, key, ca);
    } catch (RuntimeException e) {
      r.error("control-plane TLS: " + e.getMessage());
      return none();
    }
  }

  /** Whether a certificate is mounted, so the process serves HTTPS. */
  public boolean serving() {
    return cert != null;
  }

  /** Whether a CA is mounted for the clients (otherwise the JDK's trusted roots verify). */
  public boolean hasCa() {
    return ca != null;
  }

  /** An HTTPS server on {@code address} with the mounted certificate; only when {@link #serving}. */
  public HttpServer listen(InetSocketAddress address, int backlog) throws IOException {
    if (!serving()) {
      throw new IllegalStateException("no certificate is mounted (" + TLS_CERT_FILE + ")");
    }
    HttpsServer https = HttpsServer.create(address, backlog);
    https.setHttpsConfigurator(new HttpsConfigurator(serverContext()));
    return https;
  }

  /** The context a server uses: its key manager reads the certificate and key again when they change. */
  public synchronized SSLContext serverContext() {
    if (server == null) {
      Reloading<KeyedCert> keys = new Reloading<>(List.of(cert, key), ControlPlaneTls::loadKey, "certificate");
      SSLContext context = context(new KeyManager(keys), null);
      limitResumption(context.getServerSessionContext());
      keys.onChange = () -> forget(context.getServerSessionContext());
      server = context;
    }
    return server;
  }

  /** The context a client uses: it trusts the mounted CA, read again when it changes, or the JDK's roots. */
  public synchronized SSLContext clientContext() {
    if (client == null) {
      if (ca == null) {
        try {
          client = SSLContext.getDefault();
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException("the JDK has no default TLS context", e);
        }
      } else {
        Reloading<X509ExtendedTrustManager> trust = new Reloading<>(List.of(ca), ControlPlaneTls::loadTrust, "CA");
        SSLContext context = context(null, new TrustManager(trust::get));
        limitResumption(context.getClientSessionContext());
        trust.onChange = () -> forget(context.getClientSessionContext());
        client = context;
      }
    }
    return client;
  }

  /**
   * A client context that verifies the server's certificate with the CA (the JDK's roots without
   * one) and its name against {@code name} rather than the URL's host: for reaching each replica of
   * a Service at its pod's address, while its certificate names the Service. The name must be one
   * of the certificate's DNS names, exactly (no wildcards). One context per name, kept.
   */
  public SSLContext clientContextFor(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a name to verify the servers' certificates against is required");
    }
    return named.computeIfAbsent(name.toLowerCase(java.util.Locale.ROOT), n -> {
      java.util.function.Supplier<X509ExtendedTrustManager> base;
      if (ca == null) {
        try {
          TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
          factory.init((KeyStore) null);
          X509ExtendedTrustManager roots = (X509ExtendedTrustManager) factory.getTrustManagers()[0];
          base = () -> roots;
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException("the JDK has no default trust manager", e);
        }
      } else {
        base = new Reloading<>(List.of(ca), ControlPlaneTls::loadTrust, "CA")::get;
      }
      SSLContext context = context(null, new NamedTrust(base, n));
      limitResumption(context.getClientSessionContext());
      return context;
    });
  }

  private final java.util.concurrent.ConcurrentMap<String, SSLContext> named =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Checks the chain with the CA, then the server's name against a fixed one rather than the host
   * it was reached at; a client context, so the client checks it inherits are never asked.
   */
  private static final class NamedTrust extends TrustManager {
    private final java.util.function.Supplier<X509ExtendedTrustManager> base;
    private final String name;

    NamedTrust(java.util.function.Supplier<X509ExtendedTrustManager> base, String name) {
      super(base);
      this.base = base;
      this.name = name;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      base.get().checkServerTrusted(chain, authType);
      java.util.Collection<List<?>> names = chain[0].getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> entry : names) {
          if (Integer.valueOf(2).equals(entry.get(0)) && name.equalsIgnoreCase(String.valueOf(entry.get(1)))) {
            return;
          }
        }
      }
      throw new CertificateException("the server's certificate does not name " + name);
    }
  }

  /**
   * A resumed TLS session skips the certificate check, so sessions live a few minutes, not the
   * JDK's day: a renewed or expired certificate, or a rotated CA, holds for every connection within
   * {@link #SESSION_SECONDS} even between peers that keep resuming (a reload also forgets the
   * sessions this side cached).
   */
  static final int SESSION_SECONDS = 300;

  private static void limitResumption(javax.net.ssl.SSLSessionContext sessions) {
    sessions.setSessionTimeout(SESSION_SECONDS);
  }

  private static void forget(javax.net.ssl.SSLSessionContext sessions) {
    for (java.util.Enumeration<byte[]> ids = sessions.getIds(); ids.hasMoreElements();) {
      javax.net.ssl.SSLSession session = sessions.getSession(ids.nextElement());
      if (session != null) {
        session.invalidate();
      }
    }
  }

  private static SSLContext context(X509ExtendedKeyManager keys, X509ExtendedTrustManager trust) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : new javax.net.ssl.KeyManager[] {keys},
          trust == null ? null : new javax.net.ssl.TrustManager[] {trust}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /** A value read from files, read again when any of them changes; the last good one survives a bad read. */
  private static final class Reloading<T> {
    interface Loader<T> {
      T load(List<Path> files) throws IOException, GeneralSecurityException;
    }

    private final List<Path> files;
    private final Loader<T> loader;
    private final String what;
    private volatile List<FileStamp> stamps;
    private volatile T value;
    /** Run after a change was read (the sessions made with the old files are forgotten). */
    volatile Runnable onChange = () -> {};

    Reloading(List<Path> files, Loader<T> loader, String what) {
      this.files = files;
      this.loader = loader;
      this.what = what;
      try {
        this.stamps = stampAll();
        this.value = loader.load(files);
      } catch (IOException e) {
        throw new UncheckedIOException(what + " " + files + " cannot be read: " + e.getMessage(), e);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException(what + " " + files + " is not usable: " + e.getMessage(), e);
      }
    }

    private List<FileStamp> stampAll() throws IOException {
      List<FileStamp> out = new java.util.ArrayList<>();
      for (Path file : files) {
        out.add(FileStamp.of(file));
      }
      return out;
    }

    T get() {
      List<FileStamp> now;
      try {
        now = stampAll();
      } catch (IOException e) {
        return value;
      }
      if (!now.equals(stamps)) {
        synchronized (this) {
          if (!now.equals(stamps)) {
            try {
              value = loader.load(files);
              LOG.info("the {} in {} changed; using the new one", what, files);
              onChange.run();
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
              LOG.warn("the {} in {} changed but is not usable ({}); keeping the last one", what, files,
                  e.getMessage());
            }
            stamps = now;
          }
        }
      }
      return value;
    }
  }

  private record KeyedCert(X509ExtendedKeyManager manager) {}

  private static KeyedCert loadKey(List<Path> files) throws IOException, GeneralSecurityException {
    X509Certificate[] chain = certificates(files.get(0)).toArray(X509Certificate[]::new);
    if (chain.length == 0) {
      throw new CertificateException(files.get(0) + " holds no certificate");
    }
    PrivateKey privateKey = privateKey(files.get(1));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] none = new char[0];
    store.setKeyEntry("control-plane", privateKey, none, chain);
    KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, none);
    return new KeyedCert((X509ExtendedKeyManager) factory.getKeyManagers()[0]);
  }

  private static X509ExtendedTrustManager loadTrust(List<Path> files) throws IOException, GeneralSecurityException {
    List<X509Certificate> roots = certificates(files.get(0));
    if (roots.isEmpty()) {
      throw new CertificateException(files.get(0) + " holds no certificate");
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < roots.size(); i++) {
      store.setCertificateEntry("ca-" + i, roots.get(i));
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return (X509ExtendedTrustManager) factory.getTrustManagers()[0];
  }

  private static List<X509Certificate> certificates(Path file) throws IOException, CertificateException {
    byte[] pem = Files.readAllBytes(file);
    return CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).stream()
        .map(X509Certificate.class::cast).toList();
  }

  private static final Pattern PKCS8 = Pattern.compile(
      "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    Matcher m = PKCS8.matcher(pem);
    if (!m.find()) {
      throw new java.security.spec.InvalidKeySpecException(file + " holds no PKCS#8 key (BEGIN PRIVATE KEY); "
          + "convert it with 'openssl pkcs8 -topk8 -nocrypt', or set the Certificate's privateKey.encoding: PKCS8");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    GeneralSecurityException last = null;
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new java.security.spec.InvalidKeySpecException(file + ": not an RSA, EC or EdDSA key", last);
  }

  /**
   * Delegates to the key manager of the current files. A handshake picks an alias and then asks
   * for its chain and key; the alias names the reading, so a renewal between the two calls never
   * pairs one certificate with another's key.
   */
  private static final class KeyManager extends X509ExtendedKeyManager {
    private final Reloading<KeyedCert> keys;
    private volatile KeyedCert previous;
    private volatile KeyedCert last;

    KeyManager(Reloading<KeyedCert> keys) {
      this.keys = keys;
    }

    private KeyedCert now() {
      KeyedCert current = keys.get();
      if (current != last) {
        previous = last;
        last = current;
      }
      return current;
    }

    private String alias(KeyedCert reading) {
      return "control-plane-" + System.identityHashCode(reading);
    }

    private X509ExtendedKeyManager of(String alias) {
      for (KeyedCert reading : new KeyedCert[] {last, previous}) {
        if (reading != null && alias(reading).equals(alias)) {
          return reading.manager();
        }
      }
      return null;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      KeyedCert current = now();
      return current.manager().chooseEngineServerAlias(keyType, issuers, engine) == null ? null : alias(current);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      KeyedCert current = now();
      return current.manager().chooseServerAlias(keyType, issuers, socket) == null ? null : alias(current);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      X509ExtendedKeyManager m = of(alias);
      return m == null ? null : m.getCertificateChain("control-plane");
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      X509ExtendedKeyManager m = of(alias);
      return m == null ? null : m.getPrivateKey("control-plane");
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      KeyedCert current = now();
      return current.manager().getServerAliases(keyType, issuers) == null ? null : new String[] {alias(current)};
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }

  /** Delegates to the trust manager of the current CA file. */
  private static class TrustManager extends X509ExtendedTrustManager {
    private final java.util.function.Supplier<X509ExtendedTrustManager> trust;

    TrustManager(java.util.function.Supplier<X509ExtendedTrustManager> trust) {
      this.trust = trust;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      trust.get().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      trust.get().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      trust.get().checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      trust.get().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      trust.get().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      trust.get().checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return trust.get().getAcceptedIssuers();
    }
  }

  @Override
  public String toString() {
    return "ControlPlaneTls[cert=" + cert + ", ca=" + (ca == null ? "(JDK roots)" : ca) + "]";
  }
}
