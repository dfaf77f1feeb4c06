package io.shipstream.failover.activities.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.activities.HookActivities.Answer;
import io.shipstream.failover.workflows.activities.HookActivities.Body;
import io.shipstream.failover.workflows.activities.HookActivities.Call;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hook activity against a real HTTP server ({@code com.sun.net.httpserver}) that records what
 * it receives, with the bearer token in a Secret of the mock API server.
 */
class HookActivitiesTest {
  private static final GroupRef GROUP = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Body POST_BODY = new Body("orders", "shop", "planned", "post", "iad", "pdx", "0-1-100",
      "0-1-100", 0L, null, "Succeeded", null, "promoted pdx, 0 transactions lost", "mysqlfailovergroup/shop/orders",
      "2026-11-26T05:00:00Z");

  private record Received(String method, String path, String authorization, String contentType, String body) {}

  private final MockCluster cluster = MockCluster.start();
  private final HookActivitiesImpl hooks = new HookActivitiesImpl(cluster.client());
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  private volatile String answer = "{\"ok\":true}";
  private volatile long answerAfterMillis;
  private final HttpServer server = start();

  private HttpServer start() {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      s.createContext("/", exchange -> {
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
            exchange.getRequestHeaders().getFirst("Authorization"),
            exchange.getRequestHeaders().getFirst("Content-Type"),
            new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
        sleep(answerAfterMillis);
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        } catch (IOException gone) {
          // The client gave up waiting: nothing to answer.
        }
      });
      s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
      s.start();
      return s;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
    cluster.close();
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private void createSecret(String name, String key, String value) {
    cluster.client().secrets().inNamespace(GROUP.namespace()).resource(new SecretBuilder().withNewMetadata()
        .withName(name).withNamespace(GROUP.namespace()).endMetadata()
        .withData(Map.of(key, Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)))).build())
        .create();
  }

  @Test
  void postsTheDocumentedBodyWithTheTokenFromTheSecret() throws Exception {
    createSecret("hook-token", "token", "t0ken-from-secret\n");

    Answer result = hooks.post(new Call(GROUP, url("/post?x=1"), 5000, "hook-token", "token", POST_BODY));

    assertThat(result).isEqualTo(new Answer(200, "{\"ok\":true}"));
    Received r = received.get(0);
    assertThat(r.method()).isEqualTo("POST");
    assertThat(r.path()).isEqualTo("/post?x=1");
    assertThat(r.authorization()).isEqualTo("Bearer t0ken-from-secret");
    assertThat(r.contentType()).isEqualTo("application/json");
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("group").asText()).isEqualTo("orders");
    assertThat(body.get("namespace").asText()).isEqualTo("shop");
    assertThat(body.get("kind").asText()).isEqualTo("planned");
    assertThat(body.get("phase").asText()).isEqualTo("post");
    assertThat(body.get("source").asText()).isEqualTo("iad");
    assertThat(body.get("target").asText()).isEqualTo("pdx");
    assertThat(body.get("sourceGtidSet").asText()).isEqualTo("0-1-100");
    assertThat(body.get("targetGtidSet").asText()).isEqualTo("0-1-100");
    assertThat(body.get("transactionsLost").asLong()).isZero();
    assertThat(body.get("outcome").asText()).isEqualTo("Succeeded");
    assertThat(body.get("lostGtidSet").isNull()).as("unknown fields are null, not left out").isTrue();
    assertThat(JSON.treeToValue(body, Body.class)).isEqualTo(POST_BODY);
  }

  @Test
  void withoutASecretNoAuthorizationIsSent() {
    hooks.post(new Call(GROUP, url("/pre"), 5000, null, null, POST_BODY));

    assertThat(received.get(0).authorization()).isNull();
  }

  @Test
  void aNon2xxAnswerIsARetryableRefusalWithTheStatusAndTheBodysFirst200Characters() {
    status = 500;
    answer = "maintenance freeze until Monday\n" + "x".repeat(400);

    ApplicationFailure refused = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, url("/pre"), 5000, null, null, POST_BODY)));

    assertThat(refused.getType()).isEqualTo(FailureTypes.HOOK_REFUSED);
    assertThat(refused.isNonRetryable()).isFalse();
    assertThat(refused.getOriginalMessage()).startsWith("answered 500: maintenance freeze until Monday xxx")
        .hasSize("answered 500: ".length() + HookActivitiesImpl.BODY_SHOWN);
  }

  @Test
  void aRedirectIsNotFollowed() {
    status = 302;
    answer = "";

    ApplicationFailure refused = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, url("/pre"), 5000, null, null, POST_BODY)));

    assertThat(refused.getOriginalMessage()).isEqualTo("answered 302");
  }

  @Test
  void aHookSlowerThanItsTimeoutIsUnreachable() {
    answerAfterMillis = 3000;
    long started = System.nanoTime();

    ApplicationFailure timedOut = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, url("/pre"), 300, null, null, POST_BODY)));

    System.out.printf("a hook answering after 3000 ms with a 300 ms timeout gave up after %d ms%n",
        (System.nanoTime() - started) / 1_000_000);
    assertThat(timedOut.getType()).isEqualTo(FailureTypes.HOOK_UNREACHABLE);
    assertThat(timedOut.getOriginalMessage()).isEqualTo("gave no answer within 300 ms");
  }

  @Test
  void aClosedPortIsUnreachable() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }

    ApplicationFailure unreachable = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, "http://127.0.0.1:" + closed + "/pre", 2000, null, null, POST_BODY)));

    assertThat(unreachable.getType()).isEqualTo(FailureTypes.HOOK_UNREACHABLE);
    assertThat(unreachable.getOriginalMessage()).startsWith("could not be reached: ConnectException");
  }

  @Test
  void aMissingSecretOrKeyIsRetryableAndNothingIsSent() {
    createSecret("hook-token", "other", "x");

    ApplicationFailure noSecret = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, url("/pre"), 5000, "nope", "token", POST_BODY)));
    ApplicationFailure noKey = catchThrowableOfType(ApplicationFailure.class,
        () -> hooks.post(new Call(GROUP, url("/pre"), 5000, "hook-token", "token", POST_BODY)));

    assertThat(noSecret.getType()).isEqualTo(FailureTypes.CREDENTIALS_UNAVAILABLE);
    assertThat(noSecret.getOriginalMessage()).isEqualTo("the hook's Secret shop/nope not found");
    assertThat(noKey.getOriginalMessage()).isEqualTo("the hook's Secret shop/hook-token lacks the key token");
    assertThat(noKey.isNonRetryable()).isFalse();
    assertThat(received).isEmpty();
  }

  private static void sleep(long millis) {
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
