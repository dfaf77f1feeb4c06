package io.shipstream.failover.worker;

import io.shipstream.failover.temporal.TemporalStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import javax.net.ssl.TrustManager;

/** The worker's configuration turned into a Temporal connection, by the runtime module's {@link TemporalStubs}. */
final class TemporalConnection {
  private TemporalConnection() {}

  /** Options for a connection of our own (what {@code main} uses): target, TLS, API key. */
  static WorkflowServiceStubsOptions options(WorkerConfig config) {
    return TemporalStubs.options(config.temporal());
  }

  /** Trusts exactly the certificates of the PEM bundle, as {@code curl --cacert} would. */
  static TrustManager trustManager(Path caBundle) {
    return TemporalStubs.trustManager(caBundle);
  }
}
