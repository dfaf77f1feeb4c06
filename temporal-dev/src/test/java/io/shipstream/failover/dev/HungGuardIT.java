package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 30's "Must show": safety that does not depend on a guard being alive, on real servers.
 * Each section is one helper's cases.
 */
class HungGuardIT extends StackPerTest {

  // --- informer ---

  private static final Duration INFORMER_WAIT = Duration.ofSeconds(60);
  private static final String MALFORMED = "malformed";

  /**
   * (3) A second group created with an unknown spec field and a badly typed value (as {@code
   * kubectl create --validate=false} makes one) next to {@code orders}: it is {@code
   * Ready=False/InvalidSpec} with a Warning naming the field, and the watcher still sees every
   * change of {@code orders}: its pause is honoured (a planned failover refused) and, resumed, a
   * {@code kill -9} of its primary is failed over. Before, the typed informer stopped on the
   * malformed object ({@code watch failed ..., will stop}) and saw none of this.
   */
  @Test
  void aMalformedGroupDoesNotBlindTheWatcherToAnotherGroupsPauseAndFailover() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    createMalformedGroup(stack.api().client());

    Await.until(stack, () -> "InvalidSpec".equals(malformedReadyReason()), INFORMER_WAIT,
        "Ready=False/InvalidSpec on the malformed group");
    assertThat(malformedEvents("InvalidSpec")).isNotEmpty().allSatisfy(e -> {
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getMessage()).contains("spec.failureThreshold: cannot be read").contains("\"three\"");
    });

    // Seen: the pause of orders; honoured: a planned failover is refused while it holds.
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "True".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=True on orders");
    String before = Instant.now().toString();
    stack.api().annotate("pdx");
    PlannedFailoverStatus refused = stack.waits().plannedEnd(before, INFORMER_WAIT);
    assertThat(refused.phase()).isEqualTo("Failed");
    assertThat(refused.reason()).isEqualTo("Paused");
    assertThat(watcherGet("/readyz", false).statusCode()).as("the watcher is ready").isEqualTo(200);

    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, null);
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "False".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=False on orders");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    pdx.awaitCaughtUpWith(iad, INFORMER_WAIT);
    long killedAt = System.nanoTime();
    iad.kill9();
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), INFORMER_WAIT,
        "the emergency failover of orders");
    System.out.printf("malformed group beside: kill -9 of orders' primary to Succeeded: %d ms%n",
        Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(malformedReadyReason()).as("still InvalidSpec, nothing else").isEqualTo("InvalidSpec");
  }

  /**
   * (4) The watcher's path to the API server refused (a {@link TcpProxy} in front of the mock for
   * the watcher's client only): while its informer is not watching, {@code /readyz} is not ready,
   * {@code /active-site} answers 503 rather than a view that may be stale, and
   * {@code bloodraven_watcher_watching} is 0; healed, it watches again, serves the view, and acts
   * on a change made while it was cut off (orders paused meanwhile: Paused=True).
   */
  @Test
  void whileTheWatchersWatchIsRefusedItIsNotReadyAndServesNoViewThenCatchesUp() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    TcpProxy path = stack.controlPlane().routeWatcherThroughProxy();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 200, "ready through the proxy");
    awaitWatcher(ACTIVE_SITE, true, r -> r.statusCode() == 200 && r.body().contains("\"activeSite\":\"iad\""),
        "/active-site naming iad");

    long cut = System.nanoTime();
    path.refuse();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 503, "not ready once its watch is refused");
    long notReadyMillis = Duration.ofNanos(System.nanoTime() - cut).toMillis();
    HttpResponse<String> down = watcherGet(ACTIVE_SITE, true);
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.body()).contains("not watching the groups");
    assertThat(watcherGet("/metrics", false).body()).contains("bloodraven_watcher_watching 0.0");

    // A change the watcher cannot see now, made through the test's own path to the API server.
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
    Playground.sleep(1_000);
    assertThat(watcherGet("/readyz", false).statusCode()).as("still not ready while cut off").isEqualTo(503);
    assertThat(watcherGet(ACTIVE_SITE, true).statusCode()).isEqualTo(503);

    long healed = System.nanoTime();
    path.heal();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 200, "ready again once healed");
    long readyMillis = Duration.ofNanos(System.nanoTime() - healed).toMillis();
    awaitWatcher(ACTIVE_SITE, true, r -> r.statusCode() == 200 && r.body().contains("\"activeSite\":\"iad\""),
        "/active-site naming iad again");
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "True".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=True: the pause made while the watcher was cut off is acted on");
    long pausedMillis = Duration.ofNanos(System.nanoTime() - healed).toMillis();
    System.out.printf("watcher's API path refused: not ready after %d ms; healed: ready after %d ms, "
        + "the pause made meanwhile acted on after %d ms%n", notReadyMillis, readyMillis, pausedMillis);
  }

  private static final String ACTIVE_SITE = "/active-site?namespace=" + MockCluster.NAMESPACE + "&group="
      + FailoverStack.GROUP_NAME;
  private static final HttpClient WATCHER_HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Created untyped, as kubectl create --validate=false would: the mock, like that, takes any JSON. */
  private static void createMalformedGroup(KubernetesClient client) {
    String json = """
        {"apiVersion":"%s","kind":"MysqlFailoverGroup","metadata":{"name":"%s","namespace":"%s"},
         "spec":{"sites":[{"name":"a","mysql":{"host":"127.0.0.1","port":1}},
                          {"name":"b","mysql":{"host":"127.0.0.1","port":2}}],
                 "frobnicate":true,"failureThreshold":"three"}}""".formatted(MysqlFailoverGroup.API_VERSION, MALFORMED,
        MockCluster.NAMESPACE);
    client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(MockCluster.NAMESPACE)
        .resource(client.getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class)).create();
  }

  /** The malformed group's Ready reason, read untyped (its spec cannot be read typed). */
  @SuppressWarnings("unchecked")
  private String malformedReadyReason() {
    GenericKubernetesResource g = stack.api().client()
        .genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(MockCluster.NAMESPACE).withName(MALFORMED).get();
    Object status = g == null ? null : g.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    return conditions.stream().map(c -> (Map<String, Object>) c).filter(c -> "Ready".equals(c.get("type")))
        .map(c -> (String) c.get("reason")).findFirst().orElse(null);
  }

  private List<Event> malformedEvents(String reason) {
    return stack.api().events().stream().filter(e -> MALFORMED.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason())).toList();
  }

  private HttpResponse<String> watcherGet(String path, boolean token) throws Exception {
    int port = stack.controlPlane().watcherAddress().orElseThrow().getPort();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5));
    if (token) {
      request.header("Authorization", "Bearer " + FailoverStack.SIDECAR_TOKEN);
    }
    return WATCHER_HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void awaitWatcher(String path, boolean token, java.util.function.Predicate<HttpResponse<String>> condition,
      String what) throws Exception {
    long until = System.nanoTime() + INFORMER_WAIT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < until) {
      try {
        HttpResponse<String> r = watcherGet(path, token);
        if (condition.test(r)) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (java.io.IOException e) {
        last = e.toString();
      }
      Playground.sleep(50);
    }
    throw new AssertionError("the watcher was not " + what + " within " + INFORMER_WAIT + "; last: " + last);
  }

  // --- end informer ---
}
