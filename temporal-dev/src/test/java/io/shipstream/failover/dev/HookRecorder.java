package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
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
 * A real webhook endpoint on loopback for the hook tests: answers each path with the status set
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

  List<Received> at(String path) {
    return received.stream().filter(r -> r.path().equals(path)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
