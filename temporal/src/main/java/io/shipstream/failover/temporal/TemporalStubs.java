package io.shipstream.failover.temporal;

import com.uber.m3.tally.Scope;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.temporal.serviceclient.SimpleSslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/** How a process reaches Temporal: connection options from {@link TemporalSettings}, and metrics on stubs. */
public final class TemporalStubs {
  private TemporalStubs() {}

  /** Options for a connection of our own (what a {@code main} uses): target, TLS, API key. */
  public static WorkflowServiceStubsOptions options(TemporalSettings settings) {
    WorkflowServiceStubsOptions.Builder b = WorkflowServiceStubsOptions.newBuilder().setTarget(settings.address());
    if (settings.apiKey() != null) {
      String key = settings.apiKey();
      b.addApiKey(() -> key);
    }
    if (settings.mutualTls() || settings.tlsCa() != null) {
      b.setSslContext(sslContext(settings));
    } else if (settings.tls()) {
      // Server TLS with the JVM's public CAs: what Temporal Cloud with an API key needs.
      b.setEnableHttps(true);
    }
    return b.build();
  }

  /** Opens the connection lazily: the first call, not this one, fails when Temporal is down. */
  public static WorkflowServiceStubs connect(TemporalSettings settings) {
    return WorkflowServiceStubs.newServiceStubs(options(settings));
  }

  /**
   * Stubs on the same channel as {@code service}, reporting to {@code metricsScope}. The SDK takes
   * a worker's metrics scope from its service stubs, and stubs handed in by a test or the
   * playground were built without ours; this keeps their connection (and its TLS, API key and
   * headers) and only adds the scope. The result does not own the channel: shutting it down
   * leaves {@code service} usable, and closing the channel stays the caller's job.
   */
  public static WorkflowServiceStubs withMetrics(WorkflowServiceStubs service, Scope metricsScope) {
    WorkflowServiceStubsOptions options = WorkflowServiceStubsOptions.newBuilder(service.getOptions())
        .setTarget(null)
        .setChannelInitializer(null)
        .setSslContext(null)
        .setEnableHttps(false)
        .setChannel(service.getRawChannel())
        .setMetricsScope(metricsScope)
        .build();
    return WorkflowServiceStubs.newServiceStubs(options);
  }

  public static SslContext sslContext(TemporalSettings settings) {
    SimpleSslContextBuilder builder = settings.mutualTls()
        ? SimpleSslContextBuilder.forPKCS8(read(settings.tlsCert()), read(settings.tlsKey()))
        : SimpleSslContextBuilder.noKeyOrCertChain();
    if (settings.tlsCa() != null) {
      builder.setTrustManager(trustManager(settings.tlsCa()));
    }
    try {
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      // Netty reports an unreadable key or certificate as an IllegalArgumentException.
      throw new IllegalArgumentException("cannot use " + TemporalSettings.TEMPORAL_TLS_CERT + "=" + settings.tlsCert()
          + " with " + TemporalSettings.TEMPORAL_TLS_KEY + "=" + settings.tlsKey() + ": " + e.getMessage()
          + " (the key must be an unencrypted PKCS#8 PEM: BEGIN PRIVATE KEY)", e);
    }
  }

  private static InputStream read(Path file) {
    try {
      return new ByteArrayInputStream(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Trusts exactly the certificates of the PEM bundle, as {@code curl --cacert} would. */
  public static TrustManager trustManager(Path caBundle) {
    try (InputStream in = Files.newInputStream(caBundle)) {
      var certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(TemporalSettings.TEMPORAL_TLS_CA + "=" + caBundle
            + ": no PEM certificate in the file");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certificates) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers()[0];
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(TemporalSettings.TEMPORAL_TLS_CA + "=" + caBundle
          + ": not a PEM certificate bundle: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
