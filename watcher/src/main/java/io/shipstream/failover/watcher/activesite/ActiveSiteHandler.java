package io.shipstream.failover.watcher.activesite;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.runtime.HttpReplies;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.ActiveSiteAnswer;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.ErrorAnswer;
import io.shipstream.failover.wire.Wire;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /active-site?namespace=<ns>&group=<name>}: which site the group's status names as
 * active, for the sidecars' fencing. Mount it with {@code server.createContext(ActiveSiteHandler.PATH,
 * handler)} on the watcher's JDK HTTP server.
 *
 * <ul>
 *   <li>200 {@code {"activeSite":"iad","observedAt":"<RFC 3339>","leaseTimeoutMillis":20000,
 *       "peerCheckIntervalMillis":5000}}: {@code observedAt} is when this watcher read the status,
 *       so of two answers the later one is the fresher reading, which is what the sidecars compare
 *       when they pass views to each other.
 *   <li>200 {@code {"activeSite":null,"neverActive":true,"observedAt":..,"leaseTimeoutMillis":..,
 *       "peerCheckIntervalMillis":..}} for a group that has never recorded an active site (no
 *       status, or neither {@code activeSite} nor {@code lastFailoverTarget}): the watcher is
 *       about to adopt it, and a sidecar that hears this does not fence its writable server at
 *       boot, because installing the product must not stop the application's writes.
 *   <li>Both carry {@code spec.sidecar}'s lease and tick interval, so that every sidecar runs
 *       with the timing the emergency workflow waits on; a spec that does not resolve leaves them
 *       out, and the sidecars keep what they last learned.
 *   <li>{@code &fresh=true&site=<site>}: the group is read from the API server for this answer, not
 *       from the informer's cache, which can lag the failover record a workflow writes just before
 *       it makes the target writable; the answer then carries {@code "fresh":true}. A sidecar asks
 *       so when it finds its server writable while its view names another site, and fences unless
 *       the fresh view names its own site. The watcher then looks at that sidecar's fence soon, to
 *       write its Event. Without a way to read the API server, the cache answers without the mark.
 *   <li>200 {@code {"activeSite":null,"groupDeleted":true,"deletedAt":"<RFC 3339>","observedAt":..}}
 *       for a group the watcher's finalizer deleted: its tombstone ({@link Tombstones}) says so, and
 *       the API server, asked for this answer, has no group of that name (a group created again
 *       since is answered as any other). Only this tells a sidecar that its group is gone. It is
 *       given to any caller with a bearer token: the group, and with it the Secret its credential
 *       was in, may be gone, and that a group was deleted is nothing to protect.
 *   <li>400 without both parameters; 401 without a bearer token (before anything else, so an
 *       unauthenticated caller learns nothing); 403 when the token is not the group's credential
 *       ({@link SidecarCredentials}: the Secret its {@code spec.sidecar.tokenSecretRef} names, or the
 *       install's shared token for a group that names none), so a sidecar is answered only about its
 *       own group; 503 when the group's credential cannot be read (the sidecar's peers keep its
 *       lease meanwhile); 404 for an unknown group without a tombstone (to the install's token; any
 *       other gets the 403 an existing group would give, so a token cannot probe for names) (which
 *       a broken informer or an unwatched namespace gives too: no answer); 405 for anything but GET.
 *   <li>503 while the cache is not current (not yet listed, or its watch is being re-established
 *       or its informer replaced: a stale view after a failover would name the old primary, and
 *       the new primary's sidecar would fence it), the lookup fails, the status cannot be read, or
 *       it names a blank active site or only a failover target: the watcher is up but has nothing
 *       authoritative to say, and a sidecar treats that as no answer.
 *   <li>Every 200 (an active view, "never active", "deleted"; fresh or from the cache) renews the
 *       asker's lease unless its view fences it, so it is recorded in the group's {@link AnswerLogs}
 *       before it is sent (an answer a sidecar holds is always in the log): the asker is {@code
 *       &site=<site>} (without it, an unnamed asker), with the view's {@code activeSite} and {@code
 *       observedAt} (both null for "never active" and "deleted"). Nothing else is recorded: a
 *       sidecar counts no other status as contact.
 * </ul>
 *
 * <p>{@code GET /answers?namespace=<ns>&group=<name>&site=<site>} ({@link #ANSWERS_PATH}, mounted
 * with the same handler): what this watcher lately answered the sidecar of {@code site}, so that
 * an emergency failover can learn when the old primary's lease was last renewed here.
 *
 * <ul>
 *   <li>200 {@link AnswersReply}: {@link AnswerLogs#read}, the view being what {@code
 *       /active-site} would answer from the cache right now (its active site, and now as the
 *       {@code observedAt} it would stamp), or null when it would answer none: the cache is not
 *       current, or the status cannot be read, has never named an active site, or names a blank
 *       one. A reader takes a null view as one that may still renew. A group answered nothing yet
 *       has an empty, complete log with the up time of the process, which bounds every answer it
 *       gave.
 *   <li>401, 403, 405 and the credential's 503 as {@code /active-site}; 400 unless each of the
 *       three parameters is given once and not blank; a group not in the cache (a deleted one too)
 *       is a 404 to the install's token (503 while the cache is not current: it may not be listed
 *       yet) and a 403 to any other; 503 when the lookup fails.
 * </ul>
 */
public final class ActiveSiteHandler implements HttpHandler {
  public static final String PATH = "/active-site";
  /** Where the same handler serves {@code GET /answers}. */
  public static final String ANSWERS_PATH = "/answers";
  /** The parameters each request gives once; a second is ambiguous, so refused. */
  private static final Set<String> ONCE = Set.of("namespace", "group");
  private static final Set<String> ANSWERS_ONCE = Set.of("namespace", "group", "site");
  private static final Logger LOG = LoggerFactory.getLogger(ActiveSiteHandler.class);

  /** One response: status code and JSON body. */
  record Reply(int status, String body) {}

  private final Function<GroupRef, Optional<MysqlFailoverGroup>> lookup;
  private final BooleanSupplier ready;
  /** The install's shared token, for groups that name no credential of their own; null: none is. */
  private final SharedToken token;
  private final Clock clock;
  /** Each group's credential; without {@link #withCredentials}, every group uses the shared token. */
  private volatile BiFunction<GroupRef, MysqlFailoverGroup, SidecarCredentials.Credential> credentials =
      (ref, group) -> new SidecarCredentials.Shared();
  /** Reads the group from the API server, for {@code fresh=true}; null: answered from the cache. */
  private volatile Function<GroupRef, Optional<MysqlFailoverGroup>> fromApiServer;
  /** Told which site's sidecar asked for a fresh view (it may be fencing); never null. */
  private volatile BiConsumer<GroupRef, String> onFresh = (group, site) -> {};
  /** The tombstone of a deleted group; null: none is looked for, and an unknown group is a 404. */
  private volatile Function<GroupRef, Optional<Tombstones.Tombstone>> tombstones;
  /** How long since the cache was confirmed against the API server; null: not said. */
  private volatile Supplier<Duration> staleness;
  /** What this handler answered each group's sidecars; its own unless {@link #withAnswerLogs}. */
  private volatile AnswerLogs answers = new AnswerLogs();
  /**
   * Tombstones found and confirmed, kept {@link #DELETED_KEPT}: every sidecar of a deleted group
   * asks every tick, and each answer would otherwise read the ConfigMap and the group again.
   */
  private final Map<GroupRef, Confirmed> deleted = new java.util.concurrent.ConcurrentHashMap<>();
  static final Duration DELETED_KEPT = Duration.ofSeconds(10);

  private record Confirmed(Tombstones.Tombstone tombstone, java.time.Instant at) {}

  /**
   * @param lookup the cached resource (the informer's store in the watcher)
   * @param ready whether the cache is current (listed and watching); otherwise a group may be
   *     missing or stale
   */
  public ActiveSiteHandler(Function<GroupRef, Optional<MysqlFailoverGroup>> lookup, BooleanSupplier ready,
      SharedToken token, Clock clock) {
    this.lookup = Objects.requireNonNull(lookup, "lookup");
    this.ready = Objects.requireNonNull(ready, "ready");
    this.token = token;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Checks each group's requests against its own credential, read by {@code credentials} (quickly: a request's thread). */
  public ActiveSiteHandler withCredentials(SidecarCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    this.credentials = (ref, group) -> credentials.of(ref, group.getSpec());
    return this;
  }

  /**
   * Serves {@code fresh=true} from {@code fromApiServer}, and tells {@code onFresh} which sidecar
   * asked (it must not block: it runs on the request's thread).
   */
  public ActiveSiteHandler withFreshReads(Function<GroupRef, Optional<MysqlFailoverGroup>> fromApiServer,
      BiConsumer<GroupRef, String> onFresh) {
    this.fromApiServer = Objects.requireNonNull(fromApiServer, "fromApiServer");
    this.onFresh = Objects.requireNonNull(onFresh, "onFresh");
    return this;
  }

  /**
   * Answers a group absent from the cache with its tombstone, when {@code tombstones} finds one
   * (it must not block for long: it runs on the request's thread).
   */
  public ActiveSiteHandler withTombstones(Function<GroupRef, Optional<Tombstones.Tombstone>> tombstones) {
    this.tombstones = Objects.requireNonNull(tombstones, "tombstones");
    return this;
  }

  /**
   * Tells the sidecars, in each answer from the cache ({@code staleMillis}), how long since the
   * cache was last confirmed against the API server: they count the contact as of then.
   */
  public ActiveSiteHandler withStaleness(Supplier<Duration> staleness) {
    this.staleness = Objects.requireNonNull(staleness, "staleness");
    return this;
  }

  /**
   * Records the answers in {@code answers} (made before this handler answers anything, as its up
   * time bounds them).
   */
  public ActiveSiteHandler withAnswerLogs(AnswerLogs answers) {
    this.answers = Objects.requireNonNull(answers, "answers");
    return this;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Reply reply = answer(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
          exchange.getRequestURI().getRawQuery(), exchange.getRequestHeaders().getFirst("Authorization"));
      if (reply.status() == 401) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      } else if (reply.status() == 405) {
        exchange.getResponseHeaders().set("Allow", "GET");
      }
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      HttpReplies.send(exchange, reply.status(), "application/json", reply.body());
    }
  }

  Reply answer(String method, String path, String rawQuery, String authorization) {
    boolean answersPath = ANSWERS_PATH.equals(path);
    if (!PATH.equals(path) && !answersPath) {
      return error(404, "not found");
    }
    if (!"GET".equals(method)) {
      return error(405, "only GET");
    }
    if (!SharedToken.bearer(authorization)) {
      return error(401, "a bearer token is required");
    }
    Map<String, String> query;
    try {
      query = parse(rawQuery, answersPath ? ANSWERS_ONCE : ONCE);
    } catch (IllegalArgumentException e) {
      return error(400, "the query string is not URL-encoded");
    }
    if (query == null) {
      return error(400, answersPath ? "namespace, group and site must each be given once"
          : "namespace and group must each be given once");
    }
    String namespace = query.get("namespace");
    String name = query.get("group");
    String site = query.get("site");
    if (answersPath && (blank(namespace) || blank(name) || blank(site))) {
      return error(400, "namespace, group and site are required query parameters");
    }
    if (blank(namespace) || blank(name)) {
      return error(400, "namespace and group are required query parameters");
    }
    GroupRef ref = new GroupRef(namespace, name);
    if (answersPath) {
      return answers(ref, site, authorization);
    }
    if (!ready.getAsBoolean()) {
      return error(503, "the watcher is not watching the groups right now (not yet listed, or its watch is being "
          + "re-established): its view may be stale");
    }
    Function<GroupRef, Optional<MysqlFailoverGroup>> direct = fromApiServer;
    boolean fresh = direct != null && "true".equals(query.get("fresh"));
    Optional<MysqlFailoverGroup> group;
    try {
      group = (fresh ? direct : lookup).apply(ref);
    } catch (RuntimeException e) {
      LOG.warn("cannot look up {} for /active-site: {}", ref, e.toString());
      return error(503, "the group cannot be read right now");
    }
    if (group.isEmpty()) {
      Optional<Tombstones.Tombstone> tombstone;
      try {
        tombstone = confirmedTombstone(ref, fresh);
      } catch (RuntimeException e) {
        LOG.warn("cannot tell whether {} was deleted, for /active-site: {}", ref, e.toString());
        return error(503, "whether the group was deleted cannot be read right now");
      }
      if (tombstone.isEmpty()) {
        return unknown(ref, authorization, true);
      }
      return answered(ref, site, ActiveSiteAnswer.deleted(tombstone.get().deletedAt(), clock.instant()));
    } else {
      deleted.remove(ref);
    }
    Reply refused = authorize(ref, group.get(), authorization);
    if (refused != null) {
      return refused;
    }
    if (group.get().statusUnreadable()) {
      return error(503, ref + " has a status this watcher cannot read: " + String.join("; ", group.get().unreadable()));
    }
    MysqlFailoverGroupStatus status = group.get().getStatus();
    // The sidecars keep the fenced sites read-only (their operator rule), even the active site.
    List<String> fenced = status == null || status.fencedSites() == null ? List.of() : status.fencedSites();
    ActiveSiteAnswer body;
    if (Adoption.neverActive(status)) {
      body = ActiveSiteAnswer.neverActive(fenced, clock.instant());
    } else if (status.activeSite() == null || status.activeSite().isBlank()) {
      return error(503, ref + " has no active site in its status yet");
    } else {
      body = ActiveSiteAnswer.active(status.activeSite(), fenced, clock.instant());
    }
    body = withTiming(body, ref, group.get());
    Supplier<Duration> stale = staleness;
    if (!fresh && stale != null) {
      body = body.withStaleness(stale.get().toMillis());
    }
    if (fresh) {
      body = body.markedFresh();
      if (!blank(site)) {
        try {
          onFresh.accept(ref, site);
        } catch (RuntimeException e) {
          LOG.warn("{}: could not note the fresh request of site '{}': {}", ref, site, e.toString());
        }
      }
    }
    return answered(ref, site, body);
  }

  /** The 200 of {@code body} to {@code asker}'s sidecar, recorded before anyone can hold it. */
  private Reply answered(GroupRef ref, String asker, ActiveSiteAnswer body) {
    answers.answered(ref, asker, body.activeSite(), body.observedAt() == null || body.activeSite() == null ? null
        : Instant.parse(body.observedAt()));
    return new Reply(200, Wire.write(body));
  }

  /** {@code GET /answers}, its parameters checked. */
  private Reply answers(GroupRef ref, String site, String authorization) {
    boolean current = ready.getAsBoolean();
    Optional<MysqlFailoverGroup> group;
    try {
      group = lookup.apply(ref);
    } catch (RuntimeException e) {
      LOG.warn("cannot look up {} for /answers: {}", ref, e.toString());
      return error(503, "the group cannot be read right now");
    }
    if (group.isEmpty()) {
      return unknown(ref, authorization, current);
    }
    Reply refused = authorize(ref, group.get(), authorization);
    if (refused != null) {
      return refused;
    }
    String view = current ? activeSite(group.get()) : null;
    return new Reply(200, Wire.write(answers.read(ref, site, view, view == null ? null : clock.instant())));
  }

  /**
   * The site {@code /active-site} answers as active from this group as cached; null when it
   * answers none (a status it cannot read, never active, a blank active site).
   */
  private static String activeSite(MysqlFailoverGroup group) {
    if (group.statusUnreadable()) {
      return null;
    }
    MysqlFailoverGroupStatus status = group.getStatus();
    return Adoption.neverActive(status) || blank(status.activeSite()) ? null : status.activeSite();
  }

  /**
   * The refusal for a group this watcher does not have: only a holder of the install's token learns
   * that it does not exist (while the cache is {@code current}; otherwise it may not be listed yet);
   * anyone else gets the refusal a group of that name would give, so a token cannot probe for names.
   */
  private Reply unknown(GroupRef ref, String authorization, boolean current) {
    if (token == null || !token.matches(authorization)) {
      return error(403, "this credential is not " + ref + "'s");
    }
    return current ? error(404, "no MysqlFailoverGroup " + ref)
        : error(503, "the watcher is not watching the groups right now (not yet listed, or its watch is being "
            + "re-established): whether " + ref + " exists cannot be told");
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  /** Null when {@code authorization} carries the group's credential; otherwise the refusal. */
  private Reply authorize(GroupRef ref, MysqlFailoverGroup group, String authorization) {
    SidecarCredentials.Credential credential;
    try {
      credential = credentials.apply(ref, group);
    } catch (RuntimeException e) {
      LOG.warn("cannot read the credential of {} for /active-site: {}", ref, e.toString());
      return error(503, "the group's credential cannot be read right now");
    }
    if (credential instanceof SidecarCredentials.Unavailable missing) {
      return error(503, "the credential of " + ref + " cannot be read: " + missing.reason());
    }
    boolean accepted = credential instanceof SidecarCredentials.Own own
        ? SharedToken.of(own.value()).matches(authorization)
        : token != null && token.matches(authorization);
    return accepted ? null : error(403, "this credential is not " + ref + "'s");
  }

  /**
   * The spec's lease and tick interval, with the defaults applied. The emergency workflow waits on
   * these, so a sidecar running with other values (its environment's) could fence an isolated old
   * primary after the candidate became writable.
   */
  private static ActiveSiteAnswer withTiming(ActiveSiteAnswer body, GroupRef ref, MysqlFailoverGroup group) {
    GroupConfig config;
    try {
      config = GroupConfig.resolve(group.getSpec());
    } catch (GroupConfig.InvalidSpecException e) {
      LOG.debug("{}: no sidecar timing in /active-site, the spec does not resolve: {}", ref, e.getMessage());
      return body;
    }
    return body.withTiming(config.leaseTimeout().toMillis(), config.peerCheckInterval().toMillis());
  }

  /**
   * The group's tombstone, when it has one and the API server has no group of that name: a group
   * created again that the cache does not show yet is no deletion (its 404 is no answer, as
   * before, until the informer catches up). {@code groupReadFresh}: the caller already read the
   * group from the API server. Throws when either cannot be read.
   */
  private Optional<Tombstones.Tombstone> confirmedTombstone(GroupRef ref, boolean groupReadFresh) {
    Confirmed known = deleted.get(ref);
    if (known != null && !clock.instant().isAfter(known.at().plus(DELETED_KEPT))) {
      return Optional.of(known.tombstone());
    }
    Function<GroupRef, Optional<Tombstones.Tombstone>> graves = tombstones;
    if (graves == null) {
      return Optional.empty();
    }
    Optional<Tombstones.Tombstone> tombstone = graves.apply(ref);
    if (tombstone.isEmpty()) {
      deleted.remove(ref);
      return tombstone;
    }
    Function<GroupRef, Optional<MysqlFailoverGroup>> direct = fromApiServer;
    if (!groupReadFresh && direct != null && direct.apply(ref).isPresent()) {
      return Optional.empty();
    }
    deleted.put(ref, new Confirmed(tombstone.get(), clock.instant()));
    return tombstone;
  }

  /** The query's parameters, or null when one of {@code once} is given twice (ambiguous, so refused). */
  private static Map<String, String> parse(String rawQuery, Set<String> once) {
    Map<String, String> params = new HashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (once.contains(key) && params.put(key, value) != null) {
        return null;
      }
      if (key.equals("fresh") || key.equals("site")) {
        params.put(key, value);
      }
    }
    return params;
  }

  private static Reply error(int status, String message) {
    return new Reply(status, Wire.write(new ErrorAnswer(message)));
  }
}
