package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.runtime.DaemonThreads;
import io.shipstream.failover.watcher.groups.GroupChanges;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers on {@code MysqlFailoverGroup}: one for all namespaces, or one per watched
 * namespace. Every replica runs them, leader or not, because every replica answers
 * {@code /active-site} from this cache.
 *
 * <p>One bad object never blinds it. The informers watch the resources untyped ({@link
 * GenericKubernetesResource}, which any JSON object is), and each object is turned into a {@link
 * MysqlFailoverGroup} here, on its own ({@link GroupReader}): a typed informer stops for good on
 * the first object it cannot deserialise ({@code watch failed ..., will stop}), and from then on
 * sees no change to any group. An informer that stops all the same (an error fabric8 does not
 * retry) is replaced by a new one after a backoff; until the new one has listed, the old one's
 * store keeps answering, and {@link #watching()} is false, which the watcher reports as not
 * ready and {@code /active-site} as 503.
 *
 * <p>An informer does not notice a watch whose packets are dropped (a partition, a region gone
 * dark): measured, it still said it was watching 240 s after its link to the API server went
 * silent, while the groups' statuses changed without it. So the cache is checked against the API
 * server itself: every {@link #CHECK_INTERVAL} each scope's groups are listed, and the cache is
 * confirmed as of that list's start when it holds every listed group at the listed
 * resourceVersion or a later one. {@link #staleness()} is the time since the oldest scope's last
 * confirmation: what the cache may lack. {@code /active-site} tells the sidecars (a sidecar
 * counts the contact as of then, so a watcher cut off from the API server stops keeping leases
 * within a check of the cut, even where the sidecar still reaches it), and past {@link
 * #STALE_LIMIT} the cache is not {@link #watching()} at all: not ready, and 503 to the sidecars,
 * which also covers 0.1.0's sidecars that do not read the staleness.
 */
final class GroupCache implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupCache.class);
  private static final long RESYNC_MILLIS = 60_000;
  static final Duration FIRST_RESTART = Duration.ofSeconds(1);
  static final Duration MAX_RESTART = Duration.ofSeconds(30);
  /** How often each scope's groups are listed to confirm the cache ({@link #staleness()}). */
  static final Duration CHECK_INTERVAL = Duration.ofMillis(500);
  /**
   * Beyond this since its last confirmation the cache is not {@link #watching()}: a list that
   * takes longer is a slow API server, which the sidecars' leases (20 s by default) ride out on
   * their peers.
   */
  static final Duration STALE_LIMIT = Duration.ofSeconds(5);

  /** One watched scope (all namespaces, or one namespace) and the informer that currently watches it. */
  private final class Scope {
    final String name;
    final Supplier<SharedIndexInformer<GenericKubernetesResource>> create;
    /** The scope's groups as the API server lists them now. */
    final Supplier<List<GenericKubernetesResource>> list;
    /** {@link System#nanoTime} at the start of the last list the serving store was found to hold. */
    volatile long confirmedNanos = System.nanoTime();
    /** The informer whose store answers: the current one once it has listed, the one before until then. */
    volatile SharedIndexInformer<GenericKubernetesResource> serving;
    volatile SharedIndexInformer<GenericKubernetesResource> current;
    /** Consecutive restarts without a watch in between, for the backoff. */
    int restarts;
    boolean restartDue;

    Scope(String name, Supplier<SharedIndexInformer<GenericKubernetesResource>> create,
        Supplier<List<GenericKubernetesResource>> list) {
      this.name = name;
      this.create = create;
      this.list = list;
    }
  }

  /** A converted object, kept while its resourceVersion is the informer's. */
  private record Read(String resourceVersion, MysqlFailoverGroup group) {}

  private final List<Scope> scopes = new ArrayList<>();
  private final GroupReader reader;
  private final Runnable onRestart;
  private final Map<String, Read> reads = new ConcurrentHashMap<>();
  private final List<Adapter> handlers = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService restarter =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("group-informer-restart"));
  /** Lists the scopes for {@link #staleness()}; a list that hangs holds the next one back, and the staleness grows. */
  private final ScheduledExecutorService checker =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("group-cache-check"));
  /** Whether the last check said the cache was past {@link #STALE_LIMIT}, for one log line a change. */
  private boolean reportedStale;
  private volatile boolean closed;

  private GroupCache(GroupReader reader, Runnable onRestart) {
    this.reader = reader;
    this.onRestart = onRestart;
  }

  /** Starts the informers and returns once each has listed its groups. */
  static GroupCache start(KubernetesClient kube, List<String> namespaces) {
    return start(kube, namespaces, () -> {});
  }

  /** As {@link #start(KubernetesClient, List)}; {@code onRestart} runs each time a stopped informer is replaced. */
  static GroupCache start(KubernetesClient kube, List<String> namespaces, Runnable onRestart) {
    var resources =
        kube.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class));
    GroupCache cache = new GroupCache(new GroupReader(kube.getKubernetesSerialization()), onRestart);
    if (namespaces.isEmpty()) {
      cache.scopes.add(cache.new Scope("all namespaces", () -> resources.inAnyNamespace()
          .runnableInformer(RESYNC_MILLIS), () -> resources.inAnyNamespace().list().getItems()));
    } else {
      for (String ns : namespaces) {
        cache.scopes.add(cache.new Scope("namespace " + ns, () -> resources.inNamespace(ns)
            .runnableInformer(RESYNC_MILLIS), () -> resources.inNamespace(ns).list().getItems()));
      }
    }
    try {
      for (Scope scope : cache.scopes) {
        SharedIndexInformer<GenericKubernetesResource> informer = scope.create.get();
        scope.current = informer;
        scope.serving = informer;
        informer.start().toCompletableFuture().join();
        cache.supervise(scope, informer);
      }
    } catch (RuntimeException e) {
      cache.close();
      throw e;
    }
    cache.checker.scheduleWithFixedDelay(cache::check, CHECK_INTERVAL.toMillis(), CHECK_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
    return cache;
  }

  /** Whether every informer has synced once: the watcher has loaded the groups. */
  boolean synced() {
    return scopes.stream().allMatch(s -> s.serving.hasSynced());
  }

  /**
   * Whether every informer has listed and is watching now: only then is the cache known to be
   * current. False while a watch is being re-established or a stopped informer replaced, when a
   * change (a failover's new active site) may be missing from it.
   */
  boolean watching() {
    return !closed && scopes.stream().allMatch(s -> s.current == s.serving && s.current.hasSynced()
        && s.current.isWatching()) && staleness().compareTo(STALE_LIMIT) <= 0;
  }

  /**
   * How long since the cache was last confirmed against the API server (the oldest scope's): a
   * status written since may be missing from it.
   */
  Duration staleness() {
    long now = System.nanoTime();
    long oldest = scopes.stream().mapToLong(s -> s.confirmedNanos).min().orElse(now);
    return Duration.ofNanos(Math.max(0, now - oldest));
  }

  /** Lists every scope and confirms the cache as of each list's start that it holds. */
  private void check() {
    for (Scope scope : scopes) {
      if (closed) {
        return;
      }
      long started = System.nanoTime();
      try {
        if (holds(scope.serving, scope.list.get())) {
          scope.confirmedNanos = started;
        }
      } catch (RuntimeException e) {
        log.debug("the check of the MysqlFailoverGroup cache on {} failed: {}", scope.name, e.toString());
      }
    }
    boolean stale = staleness().compareTo(STALE_LIMIT) > 0;
    if (stale != reportedStale) {
      reportedStale = stale;
      if (stale) {
        log.warn("the MysqlFailoverGroup cache has not been confirmed against the API server for over {} ms (it "
            + "cannot be listed, or the informer has fallen behind): the watcher is not ready and /active-site "
            + "answers 503 until it is", STALE_LIMIT.toMillis());
      } else {
        log.info("the MysqlFailoverGroup cache is confirmed against the API server again");
      }
    }
  }

  /** Whether {@code informer}'s store holds every listed group at its listed resourceVersion or a later one. */
  static boolean holds(SharedIndexInformer<GenericKubernetesResource> informer,
      List<GenericKubernetesResource> listed) {
    for (GenericKubernetesResource item : listed) {
      GenericKubernetesResource cached = informer.getStore().get(item);
      if (cached == null || !atLeast(cached.getMetadata().getResourceVersion(),
          item.getMetadata().getResourceVersion())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether resourceVersion {@code cached} is {@code listed} or later. They are opaque to clients,
   * but etcd's are its revision numbers: compared as numbers where both are, else only equal counts.
   */
  static boolean atLeast(String cached, String listed) {
    if (cached == null || listed == null) {
      return false;
    }
    if (cached.equals(listed)) {
      return true;
    }
    try {
      return Long.parseLong(cached) >= Long.parseLong(listed);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  Optional<MysqlFailoverGroup> get(GroupRef ref) {
    String key = ref.namespace() + "/" + ref.name();
    for (Scope scope : scopes) {
      GenericKubernetesResource raw = scope.serving.getStore().getByKey(key);
      if (raw != null) {
        return Optional.of(read(key, raw));
      }
    }
    return Optional.empty();
  }

  /** Every cached group, by name. */
  List<GroupRef> refs() {
    List<GroupRef> refs = new ArrayList<>();
    for (Scope scope : scopes) {
      scope.serving.getStore().listKeys().forEach(key -> refs.add(ref(key)));
    }
    return refs;
  }

  /** The object as a group, converted once per resourceVersion (every sidecar asks every few seconds). */
  private MysqlFailoverGroup read(String key, GenericKubernetesResource raw) {
    String version = raw.getMetadata().getResourceVersion();
    // One conversion per version even when several threads ask at once, and one log line per problem.
    return reads.compute(key, (k, cached) -> {
      if (cached != null && version != null && version.equals(cached.resourceVersion())) {
        return cached;
      }
      MysqlFailoverGroup group = reader.read(raw);
      if (!group.unreadable().isEmpty()
          && (cached == null || !cached.group().unreadable().equals(group.unreadable()))) {
        log.warn("{}: the resource cannot be read whole, acted on as an invalid spec: {}", key,
            String.join("; ", group.unreadable()));
      }
      return new Read(version, group);
    }).group();
  }

  /** Adds a handler; a running informer first hands it every cached group as added. */
  synchronized void addHandler(GroupChanges handler) {
    Adapter adapter = new Adapter(handler);
    handlers.add(adapter);
    scopes.forEach(s -> s.current.addEventHandler(adapter));
  }

  synchronized void removeHandler(GroupChanges handler) {
    handlers.stream().filter(a -> a.target == handler).toList().forEach(a -> {
      handlers.remove(a);
      scopes.forEach(s -> {
        s.current.removeEventHandler(a);
        s.serving.removeEventHandler(a);
      });
    });
  }

  private void supervise(Scope scope, SharedIndexInformer<GenericKubernetesResource> informer) {
    informer.stopped().whenComplete((ignored, error) -> restartLater(scope, informer, error));
  }

  private synchronized void restartLater(Scope scope, SharedIndexInformer<GenericKubernetesResource> informer,
      Throwable error) {
    if (closed || scope.current != informer || scope.restartDue) {
      return;
    }
    scope.restartDue = true;
    long wait = Math.min(MAX_RESTART.toMillis(), FIRST_RESTART.toMillis() << Math.min(scope.restarts, 5));
    scope.restarts++;
    log.warn("the MysqlFailoverGroup informer on {} stopped ({}); the watcher is not ready and /active-site "
        + "answers 503 until a new one has listed; restarting it in {} ms", scope.name,
        error == null ? "no error given" : error.toString(), wait);
    restarter.schedule(() -> restart(scope), wait, TimeUnit.MILLISECONDS);
  }

  private synchronized void restart(Scope scope) {
    scope.restartDue = false;
    if (closed) {
      return;
    }
    SharedIndexInformer<GenericKubernetesResource> next;
    try {
      next = scope.create.get();
    } catch (RuntimeException e) {
      scope.restartDue = false;
      restartLater(scope, scope.current, e);
      return;
    }
    SharedIndexInformer<GenericKubernetesResource> before = scope.serving;
    handlers.forEach(before::removeEventHandler);
    if (before != scope.current) {
      scope.current.stop();
    }
    scope.current = next;
    handlers.forEach(next::addEventHandler);
    supervise(scope, next);
    onRestart.run();
    next.start().whenComplete((ignored, error) -> {
      if (error != null) {
        // Its stopped() completes too, and schedules the next attempt.
        next.stop();
        return;
      }
      listed(scope, before, next);
    });
  }

  /**
   * The new informer has listed: it answers from now on, and every handler hears of every group
   * once more (and of the groups gone meanwhile), so that a change made while nothing watched is
   * acted on now, not at the next resync.
   */
  private void listed(Scope scope, SharedIndexInformer<GenericKubernetesResource> before,
      SharedIndexInformer<GenericKubernetesResource> next) {
    synchronized (this) {
      if (closed || scope.current != next) {
        return;
      }
      scope.serving = next;
      scope.restarts = 0;
    }
    log.info("the MysqlFailoverGroup informer on {} was restarted and has listed {} groups; watching again",
        scope.name, next.getStore().list().size());
    Set<String> now = new HashSet<>(next.getStore().listKeys());
    Set<String> gone = new HashSet<>(before.getStore().listKeys());
    gone.removeAll(now);
    before.stop();
    for (Adapter handler : handlers) {
      now.forEach(key -> handler.target.changed(ref(key)));
      gone.forEach(key -> handler.target.deleted(ref(key)));
    }
    gone.forEach(reads::remove);
  }

  private static GroupRef ref(String key) {
    int slash = key.indexOf('/');
    return new GroupRef(key.substring(0, slash), key.substring(slash + 1));
  }

  /** Visible for tests: the informers watching now, one per scope. */
  List<SharedIndexInformer<GenericKubernetesResource>> informers() {
    return scopes.stream().map(s -> s.current).toList();
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    restarter.shutdownNow();
    checker.shutdownNow();
    for (Scope scope : scopes) {
      if (scope.current != null) {
        scope.current.stop();
      }
      if (scope.serving != null && scope.serving != scope.current) {
        scope.serving.stop();
      }
    }
  }

  /** Hands the watcher's parts the group's name only; each reads the converted group from the cache. */
  private final class Adapter implements ResourceEventHandler<GenericKubernetesResource> {
    final GroupChanges target;

    Adapter(GroupChanges target) {
      this.target = target;
    }

    @Override
    public void onAdd(GenericKubernetesResource obj) {
      target.changed(ref(obj));
    }

    @Override
    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
      target.changed(ref(after));
    }

    @Override
    public void onDelete(GenericKubernetesResource obj, boolean finalStateUnknown) {
      GroupRef ref = ref(obj);
      reads.remove(ref.namespace() + "/" + ref.name());
      target.deleted(ref);
    }

    private static GroupRef ref(GenericKubernetesResource obj) {
      return new GroupRef(obj.getMetadata().getNamespace(), obj.getMetadata().getName());
    }
  }
}
