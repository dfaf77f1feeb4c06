package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HookSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HooksSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretKeyRef;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real webhook endpoint on loopback for the hook tests and the playground's {@code hooks}
 * scenario: answers each path with the status set
 * for it (200 by default) and records every request's path, Authorization header and JSON body.
 */
final class HookRecorder implements AutoCloseable {
  record Received(String path, String authorization, JsonNode body) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  final Map<String, Integer> statusByPath = new ConcurrentHashMap<>();
  final List<Received> received = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  HookRecorder() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      received.add(new Received(path, exchange.getRequestHeaders().getFirst("Authorization"),
          JSON.readTree(exchange.getRequestBody().readAllBytes())));
      int status = statusByPath.getOrDefault(path, 200);
      byte[] answer = (status == 200 ? "ok" : "change freeze until Monday").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    });
    server.start();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /**
   * Makes this endpoint the group's hooks as a user would with kubectl: a Secret
   * {@code failover-hooks} holding {@code token}, then {@code spec.hooks} with the pre-hook at
   * {@code /pre} and the post-hook at {@code /post}, each with a 5 s timeout and that bearer token.
   * Returns the hooks written.
   */
  HooksSpec installAsHooksOf(FailoverStack stack, String token) {
    String namespace = stack.api().ref().namespace();
    stack.api().client().secrets().inNamespace(namespace).resource(new SecretBuilder()
        .withNewMetadata().withName("failover-hooks").withNamespace(namespace).endMetadata()
        .withStringData(Map.of("token", token)).build()).create();
    SecretKeyRef secret = new SecretKeyRef("failover-hooks", null);
    HooksSpec hooks = new HooksSpec(new HookSpec(url("/pre"), "5s", secret), new HookSpec(url("/post"), "5s", secret));
    stack.api().editSpec(spec -> GroupSpecs.withHooks(spec, hooks));
    return hooks;
  }

  List<Received> at(String path) {
    return received.stream().filter(r -> r.path().equals(path)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
