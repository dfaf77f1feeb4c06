package io.shipstream.failover.dev;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A kubeconfig for the embedded mock API server (through {@link KubectlGateway}), so that kubectl
 * and the playground's own {@code annotate}, {@code get}, {@code cancel} can reach it. The mock wants no credentials; its
 * context's namespace is the group's, {@code shop}.
 */
final class Kubeconfig {
  private Kubeconfig() {}

  static Path write(String serverUrl, String namespace, Path file) throws IOException {
    String server = serverUrl.replaceAll("/$", "");
    // The mock may serve TLS with a self-signed certificate; kubectl must then skip verification.
    String tls = server.startsWith("https") ? "\n    insecure-skip-tls-verify: true" : "";
    String yaml = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: failover-playground
          cluster:
            server: %s%s
        contexts:
        - name: failover-playground
          context:
            cluster: failover-playground
            user: failover-playground
            namespace: %s
        current-context: failover-playground
        users:
        - name: failover-playground
          user: {}
        """.formatted(server, tls, namespace);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, yaml);
    return file;
  }
}
