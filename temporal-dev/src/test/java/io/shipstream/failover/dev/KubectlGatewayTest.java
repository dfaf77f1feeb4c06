package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The requests {@code kubectl get mfg}, {@code kubectl get mfg -w} and
 * {@code kubectl wait --for=condition=Ready mfg/orders} send, as plain HTTP to the gateway in
 * front of a mock API server, and the answers kubectl needs from them.
 */
class KubectlGatewayTest {
  static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  static final String GROUPS = "/apis/shipstream.io/v1alpha1/namespaces/shop/mysqlfailovergroups";
  static final ObjectMapper JSON = new ObjectMapper();

  MockCluster kube;
  KubectlGateway gateway;
  final HttpClient http = HttpClient.newHttpClient();
  final GroupRef orders = new GroupRef(MockCluster.NAMESPACE, "orders");
  final GroupRef billing = new GroupRef(MockCluster.NAMESPACE, "billing");

  @BeforeEach
  void start() throws Exception {
    kube = MockCluster.start();
    for (GroupRef g : List.of(orders, billing)) {
      kube.createGroup(g.name(), List.of(MockCluster.site(g.name(), "iad", "10.0.1.10"),
          MockCluster.site(g.name(), "pdx", "10.0.2.10")));
    }
    gateway = KubectlGateway.start(kube.client().getMasterUrl().toString());
  }

  @AfterEach
  void stop() {
    gateway.close();
    kube.close();
  }

  @Test
  void getShowsThePrinterColumnsAsATable() throws Exception {
    kube.setStatus(orders, ready("True").withActiveSite("pdx").withPlannedFailover(new PlannedFailoverStatus(
        "Succeeded", "pdx", "iad", null, null, null, null, null, null, null, null, null, null)));

    JsonNode table = get(GROUPS, TABLE);

    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
    Map<String, JsonNode> row = row(table, "orders");
    assertThat(row.get("Active").asText()).isEqualTo("pdx");
    assertThat(row.get("Ready").asText()).isEqualTo("True");
    assertThat(row.get("Phase").asText()).isEqualTo("Succeeded");
    assertThat(row.get("Emergency").isNull()).as("no emergency failover yet").isTrue();
    assertThat(row.get("Age").asText()).matches("\\d+s");
    assertThat(row(table, "billing").get("Active").isNull()).isTrue();
    assertThat(table.at("/rows/0/object/kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(table.at("/rows/0/object/metadata/namespace").asText()).isEqualTo("shop");
  }

  @Test
  void getOfOneGroupIsATableOfOneRow() throws Exception {
    JsonNode table = get(GROUPS + "/orders", TABLE);

    assertThat(table.path("rows")).hasSize(1);
    assertThat(row(table, "orders")).containsKey("Ready");
  }

  @Test
  void withoutAskingForATableTheObjectIsForwardedAsStored() throws Exception {
    JsonNode group = get(GROUPS + "/orders", "application/json");

    assertThat(group.path("kind").asText()).isEqualTo("MysqlFailoverGroup");
    assertThat(group.at("/spec/sites/1/name").asText()).isEqualTo("pdx");
  }

  @Test
  void aListByNameHoldsThatGroupOnly() throws Exception {
    JsonNode list = get(GROUPS + "?fieldSelector=metadata.name%3Dorders", "application/json");

    assertThat(list.path("items")).extracting(i -> i.at("/metadata/name").asText()).containsExactly("orders");
    assertThat(get(GROUPS + "?fieldSelector=metadata.name!%3Dorders", "application/json").path("items"))
        .extracting(i -> i.at("/metadata/name").asText()).containsExactly("billing");
  }

  /** What kubectl wait --for=condition=Ready mfg/orders does: list by name, then watch by name from there. */
  @Test
  void waitSeesTheReadyConditionOfThatGroupOnly() throws Exception {
    kube.setStatus(orders, ready("False"));
    JsonNode list = get(GROUPS + "?fieldSelector=metadata.name%3Dorders", "application/json");
    String since = list.at("/metadata/resourceVersion").asText();
    assertThat(list.path("items")).hasSize(1);

    BlockingQueue<String> events = watch(GROUPS + "?fieldSelector=metadata.name%3Dorders&resourceVersion=" + since
        + "&watch=true&timeoutSeconds=10", "application/json");
    kube.setStatus(billing, ready("True"));
    kube.setStatus(orders, ready("True"));

    JsonNode event = JSON.readTree(events.poll(10, TimeUnit.SECONDS));
    assertThat(event.path("type").asText()).isEqualTo("MODIFIED");
    assertThat(event.at("/object/metadata/name").asText()).isEqualTo("orders");
    assertThat(event.at("/object/status/conditions/0/status").asText()).isEqualTo("True");
    assertThat(events.poll(1, TimeUnit.SECONDS)).as("nothing about billing").isNull();
  }

  /** kubectl get mfg -w: every change arrives as a Table row with the columns filled in. */
  @Test
  void aWatchOfTablesFollowsTheColumns() throws Exception {
    BlockingQueue<String> events = watch(GROUPS + "?watch=true&timeoutSeconds=10", TABLE);
    List<JsonNode> initial = List.of(JSON.readTree(events.poll(10, TimeUnit.SECONDS)),
        JSON.readTree(events.poll(10, TimeUnit.SECONDS)));
    assertThat(initial).extracting(e -> e.path("type").asText()).containsOnly("ADDED");

    kube.setStatus(orders, ready("True").withActiveSite("pdx"));

    JsonNode event = JSON.readTree(events.poll(10, TimeUnit.SECONDS));
    assertThat(event.path("type").asText()).isEqualTo("MODIFIED");
    assertThat(event.at("/object/kind").asText()).isEqualTo("Table");
    assertThat(row(event.path("object"), "orders").get("Active").asText()).isEqualTo("pdx");
    assertThat(row(event.path("object"), "orders").get("Ready").asText()).isEqualTo("True");
  }

  /**
   * A path the API server does not serve is a 404 Status, as a real API server answers it, and not
   * the mock's whole contents (which it gave for any path); the served ones still answer.
   */
  @Test
  void aPathThatIsNotServedIsNotFound() throws Exception {
    for (String path : List.of("/nonsense", "/api/v1/namespaces/shop/configmaps",
        "/apis/apps/v1/namespaces/shop/deployments",
        "/apis/shipstream.io/v1alpha1/namespaces/shop/widgets", GROUPS + "/orders/scale",
        "/api/v1/namespaces/shop/pods/x/log",
        "/openapi/v2")) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(gateway.url() + path))
          .header("Accept", "application/json").timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(path).isEqualTo(404);
      JsonNode status = JSON.readTree(response.body());
      assertThat(status.path("kind").asText()).as(path).isEqualTo("Status");
      assertThat(status.path("reason").asText()).as(path).isEqualTo("NotFound");
      assertThat(response.body()).as(path).doesNotContain("10.0.1.10");
    }
    // The status subresource is forwarded (kubectl patch --subresource=status); the mock itself serves no GET of it.
    assertThat(KubectlGateway.served(GROUPS + "/orders/status")).isTrue();
    assertThat(get(GROUPS, "application/json").path("items")).hasSize(2);
    assertThat(KubectlGateway.served("/api/v1/nodes")).isTrue();
    assertThat(KubectlGateway.served("/apis/coordination.k8s.io/v1/namespaces/shop/leases/l")).isTrue();
  }

  static final String EVENTS = "/api/v1/namespaces/shop/events";

  /**
   * Issue 31 item 14: {@code kubectl get events --field-selector involvedObject.name=orders} (the
   * docs/operating/day-2.md's "Watch it") and {@code kubectl failover history} select Events by their involved
   * object; the gateway applies the selector as a real API server does (the mock ignored it and
   * kubectl printed "No resources found"): {@code =}, {@code ==} and {@code !=}, comma-joined, and
   * a field Events do not support is a 400.
   */
  @Test
  void eventsAreSelectedByTheirInvolvedObjectAsARealApiServerSelectsThem() throws Exception {
    event("orders.1", "MysqlFailoverGroup", "orders", "FailoverStarted");
    event("orders.2", "MysqlFailoverGroup", "orders", "FailoverExecuted");
    event("billing.1", "MysqlFailoverGroup", "billing", "FailoverStarted");
    event("pod.1", "Pod", "orders", "Killing");

    assertThat(eventNames("involvedObject.name=orders")).containsExactlyInAnyOrder("orders.1", "orders.2", "pod.1");
    assertThat(eventNames("involvedObject.kind=MysqlFailoverGroup,involvedObject.name=orders"))
        .containsExactlyInAnyOrder("orders.1", "orders.2");
    assertThat(eventNames("involvedObject.name==orders,involvedObject.kind!=MysqlFailoverGroup"))
        .containsExactly("pod.1");
    assertThat(eventNames("involvedObject.namespace=shop,involvedObject.name!=orders")).containsExactly("billing.1");
    assertThat(eventNames("involvedObject.namespace=elsewhere")).isEmpty();
    assertThat(eventNames("reason=FailoverStarted,metadata.name!=billing.1")).containsExactly("orders.1");
    // Across namespaces too (kubectl get events -A).
    assertThat(get("/api/v1/events?fieldSelector=" + encode("involvedObject.name=billing"), "application/json")
        .path("items")).extracting(i -> i.at("/metadata/name").asText()).containsExactly("billing.1");

    // kubectl asks for a Table: the columns a real API server prints Events with.
    JsonNode table = get(EVENTS + "?fieldSelector=" + encode("involvedObject.kind=MysqlFailoverGroup,"
        + "involvedObject.name=orders"), TABLE);
    assertThat(table.path("columnDefinitions")).filteredOn(c -> c.path("priority").asInt() == 0)
        .extracting(c -> c.path("name").asText()).containsExactly("Last Seen", "Type", "Reason", "Object", "Message");
    assertThat(table.path("rows")).hasSize(2).allSatisfy(r -> assertThat(r.at("/cells/3").asText())
        .isEqualTo("mysqlfailovergroup/orders"));
    assertThat(table.path("rows")).extracting(r -> r.at("/cells/2").asText())
        .containsExactlyInAnyOrder("FailoverStarted", "FailoverExecuted");

    for (String refused : List.of(EVENTS + "?fieldSelector=" + encode("involvedObject.colour=red"),
        GROUPS + "?fieldSelector=" + encode("involvedObject.name=orders"))) {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(gateway.url() + refused))
          .header("Accept", "application/json").timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(refused).isEqualTo(400);
      JsonNode status = JSON.readTree(response.body());
      assertThat(status.path("reason").asText()).isEqualTo("BadRequest");
      assertThat(status.path("message").asText()).startsWith("field label not supported: involvedObject.");
    }
  }

  /** A watch of Events by involved object sees only that object's new Events. */
  @Test
  void aWatchOfEventsByInvolvedObjectSeesThatObjectsOnly() throws Exception {
    JsonNode list = get(EVENTS + "?fieldSelector=" + encode("involvedObject.name=orders"), "application/json");
    BlockingQueue<String> events = watch(EVENTS + "?fieldSelector=" + encode("involvedObject.name=orders")
        + "&resourceVersion=" + list.at("/metadata/resourceVersion").asText() + "&watch=true&timeoutSeconds=10",
        "application/json");
    event("billing.1", "MysqlFailoverGroup", "billing", "FailoverStarted");
    event("orders.1", "MysqlFailoverGroup", "orders", "FailoverStarted");

    JsonNode added = JSON.readTree(events.poll(10, TimeUnit.SECONDS));
    assertThat(added.path("type").asText()).isEqualTo("ADDED");
    assertThat(added.at("/object/metadata/name").asText()).isEqualTo("orders.1");
    assertThat(events.poll(1, TimeUnit.SECONDS)).as("nothing about billing").isNull();
  }

  private void event(String name, String kind, String involved, String reason) {
    kube.client().v1().events().inNamespace(MockCluster.NAMESPACE)
        .resource(new io.fabric8.kubernetes.api.model
        .EventBuilder().withNewMetadata().withName(name)
            .withNamespace(MockCluster.NAMESPACE).endMetadata()
            .withNewInvolvedObject().withKind(kind).withName(involved).withNamespace(MockCluster.NAMESPACE)
            .endInvolvedObject().withReason(reason).withType("Normal").withMessage(reason + " of " + involved)
            .withLastTimestamp("2026-04-20T14:32:47Z").build())
        .create();
  }

  private List<String> eventNames(String selector) throws Exception {
    List<String> names = new java.util.ArrayList<>();
    get(EVENTS + "?fieldSelector=" + encode(selector), "application/json").path("items")
        .forEach(i -> names.add(i.at("/metadata/name").asText()));
    return names;
  }

  private static String encode(String value) {
    return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static MysqlFailoverGroupStatus ready(String status) {
    return MysqlFailoverGroupStatus.empty().withConditions(List.of(new ConditionBuilder().withType("Ready")
        .withStatus(status).withReason("PrimaryWritable").withMessage("m")
        .withLastTransitionTime("2026-04-20T14:32:47Z").withObservedGeneration(1L).build()), 1L);
  }

  private JsonNode get(String path, String accept) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(gateway.url() + path))
        .header("Accept", accept).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  /** The events of a watch, one JSON line each, as they arrive. */
  private BlockingQueue<String> watch(String path, String accept) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    http.sendAsync(HttpRequest.newBuilder(URI.create(gateway.url() + path)).header("Accept", accept).build(),
        HttpResponse.BodyHandlers.ofLines())
        .thenAccept(r -> {
          try (Stream<String> body = r.body()) {
            body.filter(l -> !l.isBlank()).forEach(lines::add);
          }
        });
    return lines;
  }

  /** The cells of the row named {@code name}, by column name. */
  private static Map<String, JsonNode> row(JsonNode table, String name) {
    List<String> columns = table.path("columnDefinitions").findValuesAsText("name");
    for (JsonNode row : table.path("rows")) {
      if (row.at("/cells/0").asText().equals(name)) {
        Map<String, JsonNode> cells = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          cells.put(columns.get(i), row.path("cells").get(i));
        }
        return cells;
      }
    }
    throw new AssertionError("no row " + name + " in " + table);
  }
}
