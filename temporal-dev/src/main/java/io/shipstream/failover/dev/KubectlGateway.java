package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.testsupport.MockCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What kubectl needs in front of the fabric8 mock API server. kubectl reads the discovery
 * documents ({@code /api}, {@code /apis}, {@code /api/v1}, ...) before anything else, and the
 * mock in CRUD mode does not serve them, so kubectl finds no resource types at all. This gateway
 * answers discovery for the types the stack uses and forwards every other request to the mock
 * unchanged, except what the mock lacks and kubectl needs for {@code get}, {@code get -w} and
 * {@code wait}: server-side tables of the group's printer columns and of Events ({@link PrinterTable}), field
 * selectors as a real API server applies them ({@link FieldSelector}: the name and namespace, and
 * an Event's involvedObject) and watches over plain HTTP
 * ({@link PolledWatch}).
 */
final class KubectlGateway implements AutoCloseable {
  private static final String CORE_RESOURCES = """
      {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[
      %s,%s,%s,%s,%s,%s]}""".formatted(
      resource("pods", "pod", "Pod", true, List.of("po")),
      resource("services", "service", "Service", true, List.of("svc")),
      resource("events", "event", "Event", true, List.of("ev")),
      resource("secrets", "secret", "Secret", true, List.of()),
      resource("nodes", "node", "Node", false, List.of("no")),
      resource("namespaces", "namespace", "Namespace", false, List.of("ns")));

  private static final Map<String, String> GROUPS = Map.of(
      "shipstream.io/v1alpha1", resource("mysqlfailovergroups", "mysqlfailovergroup", "MysqlFailoverGroup", true,
          List.of("mfg")) + "," + subresource("mysqlfailovergroups/status", "MysqlFailoverGroup"),
      "externaldns.k8s.io/v1alpha1", resource("dnsendpoints", "dnsendpoint", "DNSEndpoint", true, List.of()),
      "coordination.k8s.io/v1", resource("leases", "lease", "Lease", true, List.of()));

  private static final String GROUP_PLURAL = "mysqlfailovergroups";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern RESOURCE_PATH = Pattern.compile(
      "/(?:api/v1|apis/[^/]+/[^/]+)/(?:namespaces/([^/]+)/)?([^/]+)(?:/([^/]+))?");
  /**
   * A resource path: groups 1 or 2 the group/version ("v1" for the core), 3 the resource, 4 a
   * subresource of an object.
   */
  private static final Pattern SERVED_PATH = Pattern.compile(
      "/(?:api/(v1)|apis/([^/]+/[^/]+))(?:/namespaces/[^/]+)?/([^/]+)(?:/[^/]+(?:/([^/]+))?)?");
  /** The resources (and subresources, after a slash) of each group/version: what discovery lists. */
  private static final Map<String, Set<String>> SERVED = served();
  /** What a real API server answers for a path it does not serve. */
  private static final String NOT_FOUND = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
      + "\"status\":\"Failure\",\"message\":\"the server could not find the requested resource\","
      + "\"reason\":\"NotFound\",\"details\":{},\"code\":404}";
  private static final Duration LONGEST_WATCH = Duration.ofMinutes(30);
  private static final Duration WATCH_POLL = Duration.ofMillis(200);

  private final PrinterTable printerTable = new PrinterTable(MockCluster.groupCrd(), Clock.systemUTC());
  private final HttpServer server;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String upstream;

  private KubectlGateway(HttpServer server, String upstream) {
    this.server = server;
    this.upstream = upstream;
  }

  /** Starts the gateway on a free loopback port in front of the mock at {@code upstream}. */
  static KubectlGateway start(String upstream) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    KubectlGateway gateway = new KubectlGateway(server, upstream.replaceAll("/$", ""));
    server.createContext("/", gateway::handle);
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "kubectl-gateway");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return gateway;
  }

  /** The URL to give kubectl. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath().replaceAll("/$", "");
      String discovery = "GET".equals(exchange.getRequestMethod()) ? discovery(path) : null;
      if (discovery != null) {
        byte[] body = discovery.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        return;
      }
      if (!served(path)) {
        // The mock in CRUD mode answers any path, an unknown one with everything it holds; kubectl
        // and scripts must see what a real API server says instead.
        byte[] body = NOT_FOUND.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(404, body.length);
        exchange.getResponseBody().write(body);
        return;
      }
      Matcher resource = RESOURCE_PATH.matcher(path);
      if ("GET".equals(exchange.getRequestMethod()) && resource.matches() && serveRead(exchange, resource)) {
        return;
      }
      forward(exchange);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether {@code path} is one of the resources discovery lists (a collection, an object, its status). */
  static boolean served(String path) {
    Matcher m = SERVED_PATH.matcher(path);
    if (!m.matches()) {
      return false;
    }
    Set<String> resources = SERVED.get(m.group(1) != null ? m.group(1) : m.group(2));
    return resources != null && resources.contains(m.group(4) == null ? m.group(3) : m.group(3) + "/" + m.group(4));
  }

  private static Map<String, Set<String>> served() {
    Map<String, Set<String>> served = new java.util.HashMap<>();
    Map<String, String> lists = new java.util.HashMap<>();
    GROUPS.forEach((gv, resources) -> lists.put(gv, "{\"resources\":[" + resources + "]}"));
    lists.put("v1", CORE_RESOURCES);
    lists.forEach((gv, list) -> {
      Set<String> names = new java.util.HashSet<>();
      try {
        JsonNode resources = JSON.readTree(list);
        resources.path("resources").forEach(r -> names.add(r.path("name").asText()));
      } catch (IOException e) {
        throw new IllegalStateException("the gateway's own discovery document does not parse: " + list, e);
      }
      served.put(gv, Set.copyOf(names));
    });
    return Map.copyOf(served);
  }

  private static String discovery(String path) {
    if (path.equals("/version")) {
      return "{\"major\":\"1\",\"minor\":\"30\",\"gitVersion\":\"v1.30.0-mock\",\"platform\":\"linux/amd64\"}";
    }
    if (path.equals("/api")) {
      return "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
          + "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1\"}]}";
    }
    if (path.equals("/api/v1")) {
      return CORE_RESOURCES;
    }
    if (path.equals("/apis")) {
      StringBuilder groups = new StringBuilder();
      GROUPS.keySet().stream().sorted().forEach(gv -> {
        String group = gv.substring(0, gv.indexOf('/'));
        String version = gv.substring(gv.indexOf('/') + 1);
        String v = "{\"groupVersion\":\"" + gv + "\",\"version\":\"" + version + "\"}";
        groups.append(groups.isEmpty() ? "" : ",").append("{\"name\":\"").append(group)
            .append("\",\"versions\":[").append(v).append("],\"preferredVersion\":").append(v).append('}');
      });
      return "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[" + groups + "]}";
    }
    if (path.startsWith("/apis/") && GROUPS.containsKey(path.substring("/apis/".length()))) {
      String gv = path.substring("/apis/".length());
      return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" + gv
          + "\",\"resources\":[" + GROUPS.get(gv) + "]}";
    }
    return null;
  }

  /**
   * Serves a GET of a collection or object itself when kubectl needs what the mock lacks: a watch,
   * a field selector, or a Table of the group. False: forward it unchanged.
   */
  private boolean serveRead(HttpExchange exchange, Matcher resource) throws IOException, InterruptedException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    boolean watch = "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    boolean events = "events".equals(resource.group(2));
    boolean table = (GROUP_PLURAL.equals(resource.group(2)) || events) && accept != null
        && accept.contains("as=Table");
    FieldSelector selector;
    try {
      selector = FieldSelector.parse(query.get("fieldSelector"), resource.group(2));
    } catch (FieldSelector.Unsupported e) {
      respond(exchange, 400, JSON.createObjectNode().put("kind", "Status").put("apiVersion", "v1")
          .<ObjectNode>set("metadata", JSON.createObjectNode()).put("status", "Failure").put("message", e.getMessage())
          .put("reason", "BadRequest").put("code", 400));
      return true;
    }
    if (!watch && !table && (selector == null || resource.group(3) != null)) {
      return false;
    }
    String upstreamPath = exchange.getRequestURI().getRawPath()
        + (query.containsKey("labelSelector") ? "?labelSelector=" + encode(query.get("labelSelector")) : "");
    UnaryOperator<JsonNode> wrap = !table ? o -> o : events
        ? o -> printerTable.eventTable(List.of(o), null, query.get("includeObject"))
        : o -> printerTable.table(List.of(o), null, query.get("includeObject"));
    if (watch) {
      if (resource.group(3) != null) {
        return false;
      }
      Duration timeout = query.containsKey("timeoutSeconds")
          ? Duration.ofSeconds(Long.parseLong(query.get("timeoutSeconds"))) : LONGEST_WATCH;
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        PolledWatch.stream(() -> items(getJson(upstreamPath).body()), selector, query.get("resourceVersion"),
            wrap, out, timeout.compareTo(LONGEST_WATCH) < 0 ? timeout : LONGEST_WATCH, WATCH_POLL);
      } catch (IOException e) {
        // The client went away: the watch is over.
      }
      return true;
    }
    Upstream got = getJson(upstreamPath);
    if (got.status() != 200) {
      respond(exchange, got.status(), got.body());
      return true;
    }
    boolean single = resource.group(3) != null;
    List<JsonNode> items = single ? List.of(got.body())
        : items(got.body()).stream().filter(i -> selector == null || selector.matches(i)).toList();
    JsonNode answer;
    if (table) {
      String version = got.body().path("metadata").path("resourceVersion").asText(null);
      answer = events ? printerTable.eventTable(items, version, query.get("includeObject"))
          : printerTable.table(items, version, query.get("includeObject"));
    } else {
      answer = ((ObjectNode) got.body().deepCopy()).set("items", JSON.valueToTree(items));
    }
    respond(exchange, 200, answer);
    return true;
  }

  private record Upstream(int status, JsonNode body) {}

  private Upstream getJson(String pathAndQuery) throws IOException, InterruptedException {
    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(upstream + pathAndQuery))
        .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Upstream(response.statusCode(), JSON.readTree(response.body()));
  }

  private static List<JsonNode> items(JsonNode list) {
    List<JsonNode> items = new java.util.ArrayList<>();
    list.path("items").forEach(items::add);
    return items;
  }

  private static void respond(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new java.util.HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        params.put(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private void forward(HttpExchange exchange) throws IOException, InterruptedException {
    byte[] requestBody = exchange.getRequestBody().readAllBytes();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstream + exchange.getRequestURI()))
        .method(exchange.getRequestMethod(), requestBody.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(requestBody));
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    // The mock only speaks JSON; kubectl also offers Table and protobuf, which the mock ignores.
    request.header("Accept", "application/json");
    HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    response.headers().firstValue("Content-Type")
        .ifPresent(v -> exchange.getResponseHeaders().set("Content-Type", v));
    int status = response.statusCode();
    // Length 0 means chunked, so that a watch streams until either side closes; -1 means no body.
    exchange.sendResponseHeaders(status, status == 204 || status == 304 ? -1 : 0);
    if (status == 204 || status == 304) {
      response.body().close();
      return;
    }
    try (InputStream in = response.body(); OutputStream out = exchange.getResponseBody()) {
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) > 0;) {
        out.write(buffer, 0, n);
        out.flush();
      }
    }
  }

  private static String resource(String plural, String singular, String kind, boolean namespaced,
      List<String> shortNames) {
    String shorts = shortNames.stream().map(s -> "\"" + s + "\"").reduce((a, b) -> a + "," + b).orElse("");
    return "{\"name\":\"" + plural + "\",\"singularName\":\"" + singular + "\",\"namespaced\":" + namespaced
        + ",\"kind\":\"" + kind + "\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\","
        + "\"watch\"],\"shortNames\":[" + shorts + "]}";
  }

  private static String subresource(String name, String kind) {
    return "{\"name\":\"" + name + "\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"" + kind
        + "\",\"verbs\":[\"get\",\"patch\",\"update\"]}";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
