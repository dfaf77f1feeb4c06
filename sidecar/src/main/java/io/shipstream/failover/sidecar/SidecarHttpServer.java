package io.shipstream.failover.sidecar;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.runtime.AnswerLog;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.HttpReplies;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.PeerPing;
import io.shipstream.failover.wire.Wire;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /health} and {@code /metrics} are open: the kubelet and Prometheus read them, and
 * they say nothing about the group beyond counters. {@code /health} answers 503 with a one-line
 * reason once the fencing loop has not completed a tick within its health bound, not only when
 * this server is gone: the kubelet's liveness probe then restarts a sidecar whose lease is no
 * longer kept by anything. Everything else needs the group's bearer
 * token and answers 401 without it: {@code /peer/ping} and {@code /peer/active-site} (a peer's
 * view can fence this group's servers, so only a holder of the token may serve or read one; each
 * answer is logged by the site the peer names in {@code ?site=}, since it renews that peer's
 * lease), {@code GET /answers?site=<site>} (those answers to that site, newest first, and the view
 * this sidecar answers with now: {@code AnswersReply}; 400 without the
 * site),
 * {@code GET /status} (it shows the peers, the lease's expiry and the state of MySQL: a map for
 * whoever would cut the right links) and {@code POST /tick}, which runs a fencing tick now and
 * answers the fresh status: the failover workflow's worker asks for one so that the old primary's
 * sidecar learns the new active site without waiting for its next scheduled tick. A tick only
 * applies the sidecar's own rules, so an extra one can fence but never unfence anything the rules
 * would not; the sidecar rate-limits them. A request without a bearer token gets 401; one with a
 * token that is not this group's credential gets 403 (another group's sidecar or worker).
 *
 * <p>With a certificate mounted ({@link ControlPlaneTls#serving}), every endpoint is served over
 * HTTPS on its own port, and the plain port keeps {@code /health} and {@code /metrics} only, so
 * that the kubelet's probes and Prometheus go on as before; an authenticated endpoint asked there
 * answers 426 without looking at the request, so no token or view crosses the network in clear.
 */
final class SidecarHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarHttpServer.class);
  private static final String JSON = "application/json";
  static final String TICK_PATH = "/tick";
  /** What this sidecar answered a peer's {@code /peer/active-site} lately: {@code GET /answers?site=<site>}. */
  static final String ANSWERS_PATH = "/answers";

  /** The endpoints the kubelet and Prometheus read, which stay on the plain port. */
  private static final java.util.Set<String> OPEN = java.util.Set.of("/health", "/metrics");

  private final HttpServer server;
  /**
   * Every answer to a peer's {@code /peer/active-site}, by the site the peer named: each renews
   * that peer's lease unless its view fences it. Made with the server, so its up time bounds every
   * answer this process gave.
   */
  private final AnswerLog answers = new AnswerLog();
  /** The HTTPS server when a certificate is mounted; null otherwise. */
  private final HttpServer https;

  SidecarHttpServer(InetSocketAddress address, ExecutorService executor, SharedToken token, String site,
      Supplier<Optional<ActiveSiteView>> view, Supplier<SidecarStatus> status, Supplier<String> metrics,
      Supplier<SidecarStatus> tickNow, Supplier<Optional<String>> stalled) throws IOException {
    this(address, executor, token, site, view, status, metrics, tickNow, stalled, ControlPlaneTls.none(), null);
  }

  /** {@code httpsAddress}: where HTTPS is served when {@code tls} has a certificate. */
  SidecarHttpServer(InetSocketAddress address, ExecutorService executor, SharedToken token, String site,
      Supplier<Optional<ActiveSiteView>> view, Supplier<SidecarStatus> status, Supplier<String> metrics,
      Supplier<SidecarStatus> tickNow, Supplier<Optional<String>> stalled, ControlPlaneTls tls,
      InetSocketAddress httpsAddress) throws IOException {
    String pingBody = Wire.write(new PeerPing(site));
    server = HttpServer.create(address, 16);
    server.setExecutor(executor);
    Map<String, Handler> routes = Map.of(
        "/health", exchange -> {
          Optional<String> problem = stalled.get();
          if (problem.isPresent()) {
            send(exchange, 503, "text/plain", problem.get() + "\n");
          } else {
            send(exchange, 200, "text/plain", "ok\n");
          }
        },
        "/status", authenticated(token, exchange -> send(exchange, 200, JSON, status.get().toJson())),
        "/metrics", exchange -> send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()),
        TopologyClient.PEER_PING_PATH, authenticated(token,
            exchange -> send(exchange, 200, JSON, pingBody)),
        TopologyClient.PEER_ACTIVE_SITE_PATH, authenticated(token, exchange -> {
          var current = view.get();
          String asker = HttpReplies.parameter(exchange.getRequestURI().getRawQuery(), "site");
          // Logged before it is sent: an answer the asker may have counted is never missing from the log.
          answers.answered(asker, current.map(ActiveSiteView::activeSite).orElse(null),
              current.map(ActiveSiteView::observedAt).orElse(null));
          if (current.isPresent()) {
            send(exchange, 200, JSON, current.get().toJson());
          } else {
            send(exchange, 204, null, null);
          }
        }),
        ANSWERS_PATH, authenticated(token, exchange -> {
          String asked = HttpReplies.parameter(exchange.getRequestURI().getRawQuery(), "site");
          if (asked == null || asked.isBlank()) {
            send(exchange, 400, "text/plain", "the site query parameter is required\n");
            return;
          }
          var current = view.get();
          send(exchange, 200, JSON, Wire.write(answers.read(asked, current.map(ActiveSiteView::activeSite).orElse(null),
              current.map(ActiveSiteView::observedAt).orElse(null))));
        }));
    // The one route that is not a GET; every other path keeps answering 405 to anything but GET.
    Map<String, Handler> posts = Map.of(
        TICK_PATH, authenticated(token, exchange -> send(exchange, 200, JSON, tickNow.get().toJson())));
    HttpServer secure = null;
    if (tls.serving()) {
      try {
        secure = tls.listen(httpsAddress, 16);
      } catch (IOException | RuntimeException e) {
        server.stop(0);
        throw e;
      }
      secure.setExecutor(executor);
      secure.createContext("/", exchange -> route(exchange, routes, posts, -1));
    }
    https = secure;
    int httpsPort = secure == null ? -1 : secure.getAddress().getPort();
    server.createContext("/", exchange -> route(exchange, routes, posts, httpsPort));
    server.start();
    if (secure != null) {
      secure.start();
    }
  }

  /** {@code httpsPort}: this is the plain port of a sidecar that serves HTTPS there; -1 otherwise. */
  private static void route(HttpExchange exchange, Map<String, Handler> routes, Map<String, Handler> posts,
      int httpsPort) {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (httpsPort >= 0 && !OPEN.contains(path)) {
        send(exchange, 426, "text/plain", "this sidecar serves " + path + " over HTTPS only, on port " + httpsPort
            + "\n");
        return;
      }
      Handler handler = routes.get(path);
      Handler post = posts.get(path);
      if (post != null) {
        if ("POST".equals(exchange.getRequestMethod())) {
          post.handle(exchange);
        } else {
          exchange.getResponseHeaders().set("Allow", "POST");
          send(exchange, 405, "text/plain", "only POST\n");
        }
      } else if (handler == null) {
        send(exchange, 404, "text/plain", "not found\n");
      } else if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET");
        send(exchange, 405, "text/plain", "only GET\n");
      } else {
        handler.handle(exchange);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("request {} failed: {}", exchange.getRequestURI().getPath(), e.toString());
    }
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** The HTTPS port; -1 without a certificate. */
  int httpsPort() {
    return https == null ? -1 : https.getAddress().getPort();
  }

  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static Handler authenticated(SharedToken token, Handler handler) {
    return exchange -> {
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      if (token.matches(authorization)) {
        handler.handle(exchange);
      } else if (SharedToken.bearer(authorization)) {
        // A credential, but not this group's: another group's sidecar, worker or watcher.
        LOG.debug("refused another credential on {} from {}", exchange.getRequestURI().getPath(),
            exchange.getRemoteAddress().getAddress().getHostAddress());
        send(exchange, 403, "text/plain", "this credential is not this group's\n");
      } else {
        // Neither the presented header nor the token is logged.
        LOG.debug("refused an unauthenticated {} from {}", exchange.getRequestURI().getPath(),
            exchange.getRemoteAddress().getAddress().getHostAddress());
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        send(exchange, 401, "text/plain", "a bearer token is required\n");
      }
    };
  }

  private static void send(HttpExchange exchange, int code, String contentType, String body) throws IOException {
    if (body == null) {
      exchange.sendResponseHeaders(code, -1);
      return;
    }
    HttpReplies.send(exchange, code, contentType, body);
  }

  @Override
  public void close() {
    server.stop(0);
    if (https != null) {
      https.stop(0);
    }
  }
}
