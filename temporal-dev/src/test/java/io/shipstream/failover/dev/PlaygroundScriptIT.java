package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.MockCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playground script itself, run from a copy of the checkout's layout in a temporary directory
 * (the script, the built classes and classpath, the logback file), so that nothing it writes
 * touches a stack a developer is serving.
 */
class PlaygroundScriptIT {
  private static final Path MODULE = Path.of("").toAbsolutePath();

  @TempDir
  Path checkout;

  /**
   * The serve process keeps writing its log at its own offset; a client command that truncated the
   * file would leave its start full of NUL bytes. Its content must survive any number of calls.
   * {@code get} runs against a mock API server standing in for serve's: it must get as far as
   * building its Kubernetes client, which is what starts the logging.
   */
  @Test
  void theCommandsAgainstServeNeverTruncateServesLog() throws Exception {
    Path devDir = layOutCheckout();
    Path serveLog = devDir.resolve("target/playground.log");
    String serveLines = "12:00:00.000 INFO  WatcherApp - watching MysqlFailoverGroups in all namespaces\n";
    Files.writeString(serveLog, serveLines);

    try (MockCluster kube = MockCluster.start()) {
      kube.createGroup(FailoverStack.GROUP_NAME, List.of(MockCluster.site(FailoverStack.GROUP_NAME, "iad", "10.0.1.10"),
          MockCluster.site(FailoverStack.GROUP_NAME, "pdx", "10.0.2.10")));
      kube.setStatus(new GroupRef(MockCluster.NAMESPACE, FailoverStack.GROUP_NAME),
          MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
      Kubeconfig.write(kube.client().getMasterUrl().toString(), MockCluster.NAMESPACE,
          devDir.resolve("target/playground/serve/kubeconfig"));

      for (int i = 0; i < 2; i++) {
        Process run = new ProcessBuilder("bash", devDir.resolve("playground").toString(), "get")
            .redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as(output).isZero();
        assertThat(output).contains("activeSite: iad");
      }
    }

    assertThat(Files.readString(serveLog)).isEqualTo(serveLines);
    assertThat(devDir.resolve("target/playground-client.log")).exists();
  }

  private Path layOutCheckout() throws IOException {
    Path devDir = Files.createDirectories(checkout.resolve("temporal-dev"));
    Files.copy(MODULE.resolve("playground"), devDir.resolve("playground"), StandardCopyOption.COPY_ATTRIBUTES);
    Path target = Files.createDirectories(devDir.resolve("target"));
    Files.copy(MODULE.resolve("target/classpath.txt"), target.resolve("classpath.txt"));
    Files.createSymbolicLink(target.resolve("classes"), MODULE.resolve("target/classes"));
    Path resources = Files.createDirectories(devDir.resolve("src/main/resources"));
    Files.copy(MODULE.resolve("src/main/resources/playground-logback.xml"), resources.resolve("playground-logback.xml"));
    return devDir;
  }
}
