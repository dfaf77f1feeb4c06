package io.shipstream.failover.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A process's own HTTP port on the JDK's server: {@code /healthz} (the process answers: liveness),
 * {@code /readyz} (whatever the process counts as ready), {@code /metrics} (Prometheus text), plus
 * any endpoint the process mounts itself. The threads are daemons so that a stuck request never
 * keeps a terminating JVM alive.
 */
public final class ProbeServer implements AutoCloseable {
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  /** Every interface; the JDK listens on IPv6 and IPv4 alike for it. */
  public static final String ANY = "0.0.0.0";

  private final HttpServer server;
  /** The HTTPS listener of the authenticated endpoints; null without a certificate. */
  private final HttpServer https;
  private final ExecutorService executor;

  private ProbeServer(HttpServer server, HttpServer https, ExecutorService executor) {
    this.server = server;
    this.https = https;
    this.executor = executor;
  }

  /** On every interface: what a pod needs, since the kubelet and the other pods come from outside. */
  public static Builder on(int port) {
    return new Builder(ANY, port);
  }

  /**
   * On the interface of {@code host} only ({@code 0.0.0.0} for every interface), e.g. 127.0.0.1
   * for a process that nothing outside the machine should reach.
   */
  public static Builder on(String host, int port) {
    return new Builder(host, port);
  }

  /** What to serve; nothing listens until {@link #start}. */
  public static final class Builder {
    private final String host;
    private final int port;
    private BooleanSupplier ready = () -> true;
    private String notReady = "not ready\n";
    private Supplier<String> metrics = () -> "";
    private final Map<String, HttpHandler> handlers = new LinkedHashMap<>();
    private final Map<String, HttpHandler> secured = new LinkedHashMap<>();
    private ControlPlaneTls tls = ControlPlaneTls.none();
    private int httpsPort;
    private int threads = 2;

    private Builder(String host, int port) {
      this.host = host;
      this.port = port;
    }

    /** {@code /readyz} answers 200 while {@code ready} holds, else 503 with {@code "not ready: " + reason}. */
    public Builder readiness(BooleanSupplier ready, String reason) {
      this.ready = ready;
      this.notReady = "not ready: " + reason + "\n";
      return this;
    }

    public Builder metrics(Supplier<String> prometheusText) {
      this.metrics = prometheusText;
      return this;
    }

    /** Mounts a handler of the process's own; it answers for its path and every path below it. */
    public Builder handler(String path, HttpHandler handler) {
      handlers.put(path, handler);
      return this;
    }

    /**
     * Mounts an endpoint that carries credentials or what they protect: with a certificate ({@link
     * #tls}) it is served on the HTTPS port only, and the plain port answers 426 there without
     * reading the request, so the probes and the scrape stay on plain HTTP while no token crosses
     * the network in clear.
     */
    public Builder securedHandler(String path, HttpHandler handler) {
      secured.put(path, handler);
      return this;
    }

    /** Serves the secured handlers over HTTPS on {@code httpsPort} (0: a free one) when {@code tls} has a certificate. */
    public Builder tls(ControlPlaneTls tls, int httpsPort) {
      this.tls = tls;
      this.httpsPort = httpsPort;
      return this;
    }

    /** Probes and one scraper need two; an endpoint that many clients call needs more. */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    public ProbeServer start() {
      HttpServer server;
      try {
        server = HttpServer.create(new InetSocketAddress(host, port), 0);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen on HTTP " + host + ":" + port, e);
      }
      AtomicInteger n = new AtomicInteger();
      ExecutorService executor = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "http-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      server.setExecutor(executor);
      BooleanSupplier isReady = ready;
      String notReadyBody = notReady;
      Supplier<String> scrape = metrics;
      server.createContext("/healthz", ex -> serve(ex, () -> Response.text(200, "ok\n")));
      server.createContext("/readyz", ex -> serve(ex, () -> isReady.getAsBoolean()
          ? Response.text(200, "ready\n") : Response.text(503, notReadyBody)));
      server.createContext("/metrics", ex -> serve(ex, () -> new Response(200, PROMETHEUS_TEXT, scrape.get())));
      handlers.forEach(server::createContext);
      HttpServer https = null;
      if (tls.serving()) {
        try {
          https = tls.listen(new InetSocketAddress(host, httpsPort), 0);
        } catch (IOException e) {
          server.stop(0);
          executor.shutdownNow();
          throw new UncheckedIOException("cannot listen on HTTPS " + host + ":" + httpsPort, e);
        }
        https.setExecutor(executor);
        secured.forEach(https::createContext);
        String moved = "served over HTTPS only, on port " + https.getAddress().getPort() + "\n";
        secured.keySet().forEach(path -> server.createContext(path, ex -> serve(ex, () -> Response.text(426, moved))));
        https.start();
      } else {
        secured.forEach(server::createContext);
      }
      server.start();
      return new ProbeServer(server, https, executor);
    }
  }

  /** The port listened on; the real one when configured as 0. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** The HTTPS port of the secured endpoints; -1 without a certificate. */
  public int httpsPort() {
    return https == null ? -1 : https.getAddress().getPort();
  }

  /** The address listened on: the wildcard address, or the one interface it was given. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private record Response(int status, String contentType, String body) {
    static Response text(int status, String body) {
      return new Response(status, "text/plain; charset=utf-8", body);
    }
  }

  private static void serve(HttpExchange ex, Supplier<Response> endpoint) throws IOException {
    try (ex) {
      Response response;
      // A context matches by prefix; only the exact path is the endpoint.
      if (!ex.getRequestURI().getPath().equals(ex.getHttpContext().getPath())) {
        response = Response.text(404, "not found\n");
      } else if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        response = Response.text(405, "method not allowed\n");
      } else {
        response = endpoint.get();
      }
      if (ex.getRequestMethod().equals("HEAD")) {
        ex.getResponseHeaders().set("Content-Type", response.contentType());
        ex.sendResponseHeaders(response.status(), -1);
        return;
      }
      HttpReplies.send(ex, response.status(), response.contentType(), response.body());
    }
  }

  /** Stops at once: the probes and the scrape have nothing worth waiting for. */
  @Override
  public void close() {
    server.stop(0);
    if (https != null) {
      https.stop(0);
    }
    executor.shutdownNow();
  }
}
