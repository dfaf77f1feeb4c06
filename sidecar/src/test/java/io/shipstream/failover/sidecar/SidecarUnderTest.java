package io.shipstream.failover.sidecar;

import io.shipstream.failover.runtime.SharedToken;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A whole sidecar of site iad started in-process with its MySQL faked, the {@link FakeWatcher}
 * (iad active) it asks, and the HTTP calls a test makes to it. Registered as an extension, it
 * closes the last sidecar it started and the watcher after each test.
 */
final class SidecarUnderTest implements AfterEachCallback {
  final FakeWatcher watcher = new FakeWatcher(SharedToken.of(Configs.TOKEN), "iad");
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Duration lease;
  private final Duration interval;
  private Sidecar sidecar;

  SidecarUnderTest(Duration lease, Duration interval) {
    this.lease = lease;
    this.interval = interval;
  }

  /** Starts the sidecar with no peers, asking the fake watcher. */
  Sidecar start(FakeLocalMysql mysql) {
    return start(watcher.url(), List.of(), mysql);
  }

  Sidecar start(URI watcherUrl, List<URI> peers, FakeLocalMysql mysql) {
    sidecar = Sidecar.start(Configs.config("iad", watcherUrl, peers, lease, interval), Clock.systemUTC(), mysql);
    return sidecar;
  }

  URI url(String path) {
    return URI.create("http://127.0.0.1:" + sidecar.port() + path);
  }

  HttpResponse<String> get(String path, String authorization) throws Exception {
    return send(HttpRequest.newBuilder(url(path)).GET(), authorization);
  }

  HttpResponse<String> post(String path, String authorization) throws Exception {
    return send(HttpRequest.newBuilder(url(path)).POST(HttpRequest.BodyPublishers.noBody()), authorization);
  }

  HttpResponse<String> send(HttpRequest.Builder request, String authorization) throws Exception {
    request.timeout(Duration.ofSeconds(5));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(10);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (sidecar != null) {
      sidecar.close();
    }
    watcher.close();
  }
}
