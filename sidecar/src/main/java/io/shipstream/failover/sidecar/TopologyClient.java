package io.shipstream.failover.sidecar;

import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.runtime.SharedToken;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Asks the watcher and every peer, all at once, what they know. A reply counts as contact only
 * when it is the other side's authenticated answer (watcher: 200 with a view or saying the group
 * has never had an active site; peer: 200 or 204,
 * or a 404-then-ping from a sidecar too old to serve its view): a load balancer's error page or a
 * refused token must not keep a partitioned primary's lease alive.
 */
final class TopologyClient {
  static final String ACTIVE_SITE_PATH = "/active-site";
  static final String PEER_ACTIVE_SITE_PATH = "/peer/active-site";
  static final String PEER_PING_PATH = "/peer/ping";

  /**
   * One answer. {@code contactAt} is set when the other side answered as itself; {@code awaited}
   * is false for a request still running when a decisive answer ended the wait, which says nothing
   * about that link either way. {@code neverActive}, {@code timing} and {@code groupDeletedAt} (the
   * group's tombstone) come from the watcher only:
   * peers relay views, never these (see {@link FencingLoop}).
   */
  record Reply(URI endpoint, Optional<Instant> contactAt, Optional<ActiveSiteView> view, String problem,
      boolean awaited, boolean neverActive, Optional<Timing> timing, Optional<Instant> groupDeletedAt) {
    Reply(URI endpoint, Optional<Instant> contactAt, Optional<ActiveSiteView> view, String problem, boolean awaited) {
      this(endpoint, contactAt, view, problem, awaited, false, Optional.empty(), Optional.empty());
    }

    static Reply contact(URI endpoint, Instant at, ActiveSiteView view) {
      return new Reply(endpoint, Optional.of(at), Optional.ofNullable(view), null, true);
    }

    static Reply watcher(URI endpoint, Instant at, WatcherAnswer answer) {
      return new Reply(endpoint, Optional.of(at), answer.view(), null, true, answer.neverActive(), answer.timing(),
          answer.groupDeletedAt());
    }

    static Reply failed(URI endpoint, String problem) {
      return new Reply(endpoint, Optional.empty(), Optional.empty(), problem, true);
    }

    static Reply notAwaited(URI endpoint) {
      return new Reply(endpoint, Optional.empty(), Optional.empty(), null, false);
    }
  }

  record Poll(Reply watcher, List<Reply> peers) {}

  /**
   * The watcher's answer to a request for a fresh view, and that view when the watcher says it
   * read it from the API server for this answer (empty otherwise: no answer, or an older watcher
   * that answered from its cache, which proves nothing about a promotion).
   */
  record Fresh(Reply reply, Optional<ActiveSiteView> view) {}

  private final HttpClient http;
  private final Clock clock;
  private final URI watcherUrl;
  private final List<URI> peerUrls;
  private final String query;
  private final String peerQuery;
  private final SharedToken token;

  /** Told of each request that failed in TLS; never null. */
  private final BiConsumer<URI, TlsProblem> onTlsError;

  TopologyClient(SidecarConfig config, Clock clock, Executor executor) {
    this(config, clock, executor, (endpoint, problem) -> {});
  }

  TopologyClient(SidecarConfig config, Clock clock, Executor executor, BiConsumer<URI, TlsProblem> onTlsError) {
    this.onTlsError = onTlsError;
    this.clock = clock;
    this.watcherUrl = config.watcherUrl();
    this.peerUrls = config.peerUrls();
    // Every request names this sidecar's site: the watcher and the peers log their answers by it
    // (each renews this sidecar's lease), which a failover reads to learn when the lease was last renewed.
    String site = URLEncoder.encode(config.site(), StandardCharsets.UTF_8);
    this.query = "?namespace=" + URLEncoder.encode(config.namespace(), StandardCharsets.UTF_8)
        + "&group=" + URLEncoder.encode(config.group(), StandardCharsets.UTF_8) + "&site=" + site;
    this.peerQuery = "?site=" + site;
    this.token = config.token();
    // HTTP/1.1: no h2c upgrade dance on every new connection, and redirects are not followed, so
    // the token is never sent anywhere but the configured endpoints. Each request's own timeout,
    // from the interval the sidecar has learned, bounds the connect too; this is only a backstop.
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Timing.MAX_REQUEST_TIMEOUT)
        .followRedirects(HttpClient.Redirect.NEVER)
        // https URLs are verified against TLS_CA_FILE (re-read when it changes) and the URL's host.
        .sslContext(config.tls().clientContext())
        .executor(executor)
        .build();
  }

  /**
   * Asks everyone at once; returns when all have answered or timed out, or as soon as one answer
   * is {@code decisive}: a peer telling a writable primary that another site is active must not
   * wait out the timeout of a silent watcher, or rule 1 would take a tick plus a timeout. Each
   * request may take {@code timeout}.
   */
  Poll poll(Duration timeout, Predicate<Reply> decisive) {
    CompletableFuture<Reply> watcher = askWatcher(timeout);
    List<CompletableFuture<Reply>> peers = new ArrayList<>();
    for (URI peer : peerUrls) {
      peers.add(askPeer(peer, timeout));
    }
    List<CompletableFuture<Reply>> all = new ArrayList<>(peers);
    all.add(watcher);
    CompletableFuture<Reply> decided = new CompletableFuture<>();
    all.forEach(reply -> reply.thenAccept(r -> {
      if (decisive.test(r)) {
        decided.complete(r);
      }
    }));
    awaitAllOr(all, decided, timeout);
    List<Reply> peerReplies = new ArrayList<>();
    for (int i = 0; i < peerUrls.size(); i++) {
      peerReplies.add(collect(peers.get(i), peerUrls.get(i)));
    }
    return new Poll(collect(watcher, watcherUrl), peerReplies);
  }

  /** The request timeout bounds each call; the extra margin only guards against a lost callback. */
  private static void awaitAllOr(List<CompletableFuture<Reply>> all, CompletableFuture<Reply> decided,
      Duration timeout) {
    CompletableFuture<Void> everyone = CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    try {
      CompletableFuture.anyOf(everyone, decided).get(timeout.multipliedBy(2).plusMillis(200).toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Each reply already turns its own failure into a failed Reply; what is still running is collected as such.
    }
  }

  private static Reply collect(CompletableFuture<Reply> future, URI endpoint) {
    if (!future.isDone()) {
      return Reply.notAwaited(endpoint);
    }
    try {
      return future.join();
    } catch (RuntimeException e) {
      return Reply.failed(endpoint, describe(e));
    }
  }

  private CompletableFuture<Reply> askWatcher(Duration timeout) {
    return askWatcher(query, timeout).thenApply(Fresh::reply);
  }

  /**
   * Asks the watcher alone for a view it reads from the API server now ({@code fresh=true}), not
   * from its informer's cache, which can lag the failover record written just before a promotion.
   * The query's {@code site} tells the watcher which sidecar asks, so that it can look at that
   * sidecar's fence.
   */
  Fresh askFresh(Duration timeout) {
    String freshQuery = query + "&fresh=true";
    CompletableFuture<Fresh> answer = askWatcher(freshQuery, timeout);
    try {
      return answer.get(timeout.plusMillis(200).toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Each answer already turns its own failure into a failed Reply; this only guards a lost callback.
    }
    answer.cancel(true);
    return new Fresh(Reply.notAwaited(watcherUrl), Optional.empty());
  }

  private CompletableFuture<Fresh> askWatcher(String withQuery, Duration timeout) {
    return get(Endpoints.resolve(watcherUrl, ACTIVE_SITE_PATH + withQuery), timeout).thenApply(response -> {
      if (response.statusCode() != 200) {
        return new Fresh(Reply.failed(watcherUrl, "watcher answered " + response.statusCode()), Optional.empty());
      }
      try {
        WatcherAnswer answer = WatcherAnswer.parse(response.body());
        // The contact counts as of the watcher's last confirmation of its cache, not its answer.
        return new Fresh(Reply.watcher(watcherUrl, clock.instant().minus(answer.stale()), answer),
            answer.fresh() ? answer.view() : Optional.empty());
      } catch (IllegalArgumentException e) {
        return new Fresh(Reply.failed(watcherUrl, "watcher sent an unreadable view: " + e.getMessage()),
            Optional.empty());
      }
    }).exceptionally(e -> new Fresh(Reply.failed(watcherUrl, failure(watcherUrl, e)), Optional.empty()));
  }

  private CompletableFuture<Reply> askPeer(URI peer, Duration timeout) {
    return get(Endpoints.resolve(peer, PEER_ACTIVE_SITE_PATH + peerQuery), timeout).thenCompose(response -> {
      switch (response.statusCode()) {
        case 200:
          try {
            return done(Reply.contact(peer, clock.instant(), ActiveSiteView.parse(response.body())));
          } catch (IllegalArgumentException e) {
            // It answered as a sidecar; only its view is unusable.
            return done(
                new Reply(peer, Optional.of(clock.instant()), Optional.empty(), "unreadable view: " + e.getMessage(),
                    true));
          }
        case 204:
          return done(Reply.contact(peer, clock.instant(), null));
        case 404:
          // A sidecar from before /peer/active-site: its liveness still counts, its view does not exist.
          return get(Endpoints.resolve(peer, PEER_PING_PATH), timeout).thenApply(ping -> ping.statusCode() == 200
              ? Reply.contact(peer, clock.instant(), null)
              : Reply.failed(peer, "peer ping answered " + ping.statusCode()));
        default:
          return done(Reply.failed(peer, "peer answered " + response.statusCode()));
      }
    }).exceptionally(e -> Reply.failed(peer, failure(peer, e)));
  }

  private CompletableFuture<HttpResponse<byte[]>> get(URI uri, Duration timeout) {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(timeout)
        .header("Authorization", token.authorization())
        .header("Accept", "application/json")
        .GET()
        .build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  private static CompletableFuture<Reply> done(Reply reply) {
    return CompletableFuture.completedFuture(reply);
  }

  /**
   * Why a request failed, for the reply's problem. A TLS failure (an expired certificate, an
   * unknown CA, a name that does not match) is counted and said as such; it is still no contact:
   * an answer this sidecar cannot verify must not keep a writable primary's lease alive, so a
   * sidecar that reaches neither the watcher nor a peer over verified TLS is cut off and fences
   * after its lease, exactly as when the links are down.
   */
  private String failure(URI endpoint, Throwable e) {
    Optional<TlsProblem> tls = TlsProblem.of(e);
    if (tls.isPresent()) {
      try {
        onTlsError.accept(endpoint, tls.get());
      } catch (RuntimeException ignored) {
        // A metric that cannot be counted changes nothing about the reply.
      }
      return "TLS " + tls.get().describe(describe(e));
    }
    return describe(e);
  }

  private static String describe(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
