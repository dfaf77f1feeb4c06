package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Safety that does not rest on a guard being alive (issue 30), on real servers: a sidecar whose
 * fencing loop or whole JVM stops, a malformed group, the group informer taken down, a primary
 * restarted inside the debounce, an old primary returning with transactions the new one lacks,
 * and a replica made writable by hand.
 */
class HungGuardIT extends StackPerTest {

  // --- hung fencing loop ---

  /**
   * A fencing loop that hangs while its HTTP threads answer: the sidecar of a replica and of the
   * primary each run as their own JVM, and their tick thread is suspended (as a deadlock or a call
   * stuck past its timeout would hold it). Nothing fences for them any more: pdx is then made
   * writable by hand, iad is cut off from the watcher and every peer, and both stay writable. Their
   * {@code /health} fails once no tick has completed within the bound, the dev kubelet (the pod's
   * liveness probe, the chart's settings) restarts them, and the restarted sidecar fences its
   * server at boot: pdx's because its view names iad, iad's because it cannot learn a view.
   */
  @Test
  void aFencingLoopThatHangsWhileItsHttpThreadAnswersIsRestartedAndFencesAtBoot() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    SidecarMesh.Knobs knobs = SidecarMesh.Knobs.playground();
    SidecarMesh mesh = stack.startSidecars(knobs, Set.of("iad", "pdx"));
    DevKubelet kubelet = mesh.kubelet().orElseThrow();
    SidecarLiveness.Probe probe = kubelet.probe(DevKubelet.podOf("iad")).orElseThrow();
    assertThat(probe).as("the pod's probe, the chart's settings").isEqualTo(SidecarLiveness.Probe.CHART);
    Duration bound = SidecarLiveness.restartAndFenceBound(probe, knobs.peerCheckInterval());

    HungLoop pdx = hangRestartAndFence(mesh, kubelet, "pdx", () -> stack.server("pdx").setReadOnly(false));
    assertThat(mesh.statusJson("pdx").path("view").path("activeSite").asText()).isEqualTo("iad");

    HungLoop iad = hangRestartAndFence(mesh, kubelet, "iad", () -> mesh.partition("iad"));
    assertThat(mesh.statusJson("iad").path("view").isNull()).as("iad's new sidecar never learned a view").isTrue();

    for (HungLoop hung : new HungLoop[] {pdx, iad}) {
      System.out.printf("hung fencing loop of %s: hang -> /health 503 %d ms (bound %d ms after the last tick); "
          + "-> restart %d ms; -> fenced %d ms (boot fence %d ms after the restart, its first tick %d ms after the "
          + "process start; documented bound %d ms); whole %d ms of %d ms allowed%n", hung.site,
          hung.healthFailed().toMillis(), hung.healthBound().toMillis(), hung.restarted().toMillis(),
          hung.fenced().toMillis(), hung.bootFence().toMillis(), hung.processStartToFirstTick().toMillis(),
          SidecarLiveness.BOOT_FENCE_BOUND.toMillis(), hung.unguarded().toMillis(), bound.toMillis());
      assertThat(hung.unguarded()).as("from the last completed tick to the boot fence, %s", hung.site)
          .isLessThanOrEqualTo(bound);
      assertThat(hung.bootFence()).as("boot fence of %s", hung.site).isLessThanOrEqualTo(SidecarLiveness.BOOT_FENCE_BOUND);
    }
    // The restarted sidecars tick again: nothing restarts them a second time.
    Playground.sleep(probe.period().multipliedBy(probe.failureThreshold() + 1).toMillis());
    assertThat(kubelet.restarts("pdx")).hasSize(1);
    assertThat(kubelet.restarts("iad")).hasSize(1);
    assertThat(health(mesh, "iad").statusCode()).isEqualTo(200);
    assertThat(stack.server("pdx").isReadOnly()).isTrue();
    assertThat(stack.server("iad").isReadOnly()).isTrue();
  }

  /**
   * What happened to one site's sidecar, on the test's clock: the last tick its loop completed, when
   * the loop was hung, when {@code /health} first failed, when the kubelet restarted it and when
   * its server was seen read-only.
   */
  private record HungLoop(String site, Instant lastTick, Instant hungAt, Instant healthFailedAt,
      Duration healthBound, Instant restartedAt, Instant fencedAt, Duration processStartToFirstTick) {
    Duration healthFailed() {
      return Duration.between(hungAt, healthFailedAt);
    }

    Duration restarted() {
      return Duration.between(healthFailedAt, restartedAt);
    }

    Duration fenced() {
      return Duration.between(restartedAt, fencedAt);
    }

    Duration bootFence() {
      return fenced();
    }

    Duration unguarded() {
      return Duration.between(lastTick.isBefore(hungAt) ? lastTick : hungAt, fencedAt);
    }
  }

  private HungLoop hangRestartAndFence(SidecarMesh mesh, DevKubelet kubelet, String site, Runnable thenMakeWritable)
      throws Exception {
    DatabaseServer server = stack.server(site);
    SidecarProcess process = mesh.process(site);
    long pid = process.pid();
    assertThat(health(mesh, site).statusCode()).isEqualTo(200);

    Instant hungAt = Instant.now();
    process.hangFencingLoop();
    JsonNode status = mesh.statusJson(site);
    Instant lastTick = Instant.parse(status.path("lastTickCompletedAt").asText());
    Duration healthBound = Duration.ofMillis(status.path("healthBoundMillis").asLong());
    assertThat(healthBound).isEqualTo(SidecarLiveness.healthBound(mesh.knobs().peerCheckInterval()));
    thenMakeWritable.run();
    assertThat(server.isReadOnly()).isFalse();

    HttpResponse<String> failed = awaitHealth(mesh, site, 503, healthBound.plusSeconds(10));
    Instant healthFailedAt = Instant.now();
    assertThat(failed.body()).startsWith("fencing loop stalled: no tick completed for ")
        .contains("(bound " + healthBound.toMillis() + " ms)");
    assertThat(server.isReadOnly()).as("nothing guarded %s while its loop hung", site).isFalse();
    assertThat(mesh.statusJson(site).path("lastTickCompletedAt").asText())
        .as("/status answers from the hung JVM, with the same last tick").isEqualTo(lastTick.toString());

    DevKubelet.Restart restart = kubelet.awaitRestart(site, 1, probe(kubelet, site).restartWithin().plusSeconds(10));
    assertThat(restart.reason()).contains("fencing loop stalled");
    assertThat(process.pid()).as("a new JVM").isNotEqualTo(pid);
    Instant restartedAt = process.startedAt();

    Instant fencedAt = awaitReadOnly(server, SidecarLiveness.BOOT_FENCE_BOUND.plusSeconds(10));
    awaitHealth(mesh, site, 200, Duration.ofSeconds(10));
    JsonNode after = mesh.statusJson(site);
    assertThat(after.path("boot").asText()).isEqualTo("FENCED_BY_BOOT");
    assertThat(after.path("lastFenceAt").isNull()).isFalse();
    return new HungLoop(site, lastTick, hungAt, healthFailedAt, healthBound, restartedAt, fencedAt,
        Duration.ofMillis(after.path("processStartToFirstTickMillis").asLong()));
  }

  private static SidecarLiveness.Probe probe(DevKubelet kubelet, String site) {
    return kubelet.probe(DevKubelet.podOf(site)).orElseThrow();
  }

  private static Instant awaitReadOnly(DatabaseServer server, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (server.isReadOnly()) {
          return Instant.now();
        }
      } catch (RuntimeException e) {
        // Not answering for a moment: look again.
      }
      if (System.nanoTime() > until) {
        throw new AssertionError(server.name() + " was not fenced within " + timeout);
      }
      Playground.sleep(50);
    }
  }

  private static HttpResponse<String> awaitHealth(SidecarMesh mesh, String site, int code, Duration timeout)
      throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < until) {
      try {
        HttpResponse<String> response = health(mesh, site);
        if (response.statusCode() == code) {
          return response;
        }
        last = response.statusCode() + " " + response.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(50);
    }
    throw new AssertionError(site + "'s /health did not answer " + code + " within " + timeout + "; last: " + last);
  }

  private static HttpResponse<String> health(SidecarMesh mesh, String site) throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mesh.port(site)
        + SidecarLiveness.HEALTH_PATH)).timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
  }

  // --- end hung fencing loop ---
}
