package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.kube.SidecarProbes;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.DaemonThreads;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.watcher.topology.StartsReadOnlyWatch.Notice;
import io.shipstream.failover.workflows.contract.Events;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every site's sidecar, on a thread of its own, whether its server is configured to start
 * read-only, and turns the answers into Events through {@link StartsReadOnlyWatch} and into the
 * {@code bloodraven_server_starts_read_only} gauge, and reports each fence the sidecar made
 * ({@link SidecarFenceEvents}). The sidecar has no Kubernetes client, so the leading watcher says it
 * for it. A configuration changes rarely: each site is asked every
 * {@link #INTERVAL} (never more often than its group's pollInterval), so that the checks cost the
 * topology polls nothing; a sidecar that does not answer is skipped, its health being another matter.
 * At the same pace it reads the site's pods for the liveness probe that restarts a hung sidecar
 * ({@link SidecarProbes}); a site without one makes the group Degraded ({@code SidecarNotGuarded}).
 */
public final class StartupChecks implements Duties.Startup, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartupChecks.class);
  public static final Duration INTERVAL = Duration.ofSeconds(30);
  /** When a sidecar that asked for a fresh view is looked at: its fence follows the answer within a tick. */
  private static final long[] SOON_MILLIS = {300, 1500};

  private record Key(GroupRef group, String site) {}

  private final SidecarStatusReader reader;
  /** Reads the liveness probe of a site's sidecar from its pods: the one reader the emergency failover uses too. */
  private final BiFunction<GroupRef, SiteSpec, GuardRestart.Reading> probes;
  /**
   * The sites whose sidecar cannot be read for a control-plane reason (a TLS failure, a refused or
   * unreadable credential), with that reason and why; absent once it answers.
   */
  private final Map<Key, GroupConditions.Problem> controlPlane = new ConcurrentHashMap<>();
  /** The sites whose pods declare no liveness probe on /health, with why; absent once one is seen. */
  private final Map<Key, String> unguarded = new ConcurrentHashMap<>();
  private final OldPrimaryRecovery.Events events;
  private final TopologyMetrics metrics;
  private final Duration interval;
  private final Map<Key, StartsReadOnlyWatch> watches = new ConcurrentHashMap<>();
  private final Map<GroupRef, List<ScheduledFuture<?>>> scheduled = new ConcurrentHashMap<>();
  /** Each checked site's sidecar URL, for the checks a fresh request asks for. */
  private final Map<Key, String> urls = new ConcurrentHashMap<>();
  private final SidecarFenceEvents fences;
  private final ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor(
      DaemonThreads.named("sidecar-status"));

  public StartupChecks(SidecarStatusReader reader, BiFunction<GroupRef, SiteSpec, GuardRestart.Reading> probes,
      OldPrimaryRecovery.Events events, TopologyMetrics metrics, Duration interval) {
    this.reader = reader;
    this.probes = probes;
    this.events = events;
    this.metrics = metrics;
    this.interval = interval;
    this.fences = new SidecarFenceEvents(events, java.time.Clock.systemUTC());
  }

  /**
   * When a sidecar asks the watcher for a fresh view it has found its server writable while its
   * view names another site, and it fences unless the fresh view names its own: its {@code /status}
   * is read soon (twice, the fence being a statement and a session kill away) rather than at the
   * next regular check, so that the fence's Event follows it within about a second.
   */
  public void checkSoon(GroupRef group, String site) {
    Key key = new Key(group, site);
    String url = urls.get(key);
    if (url == null) {
      return;
    }
    try {
      for (long delay : SOON_MILLIS) {
        checks.schedule(() -> checkStartup(key, url), delay, TimeUnit.MILLISECONDS);
      }
    } catch (RejectedExecutionException e) {
      // Closed on losing leadership: the next leader's regular check reports the fence.
    }
  }

  /**
   * The watcher's: checks every {@link #INTERVAL}, presenting each group's credential ({@code
   * tokens}) to its sidecars, over https verified with {@code tls}.
   */
  public static StartupChecks every30s(java.util.function.Function<GroupRef, SharedToken> tokens,
      ControlPlaneTls tls, SidecarProbes probes, OldPrimaryRecovery.Events events, TopologyMetrics metrics) {
    return new StartupChecks(new SidecarStatusReader(tokens, tls), probes::read, events, metrics, INTERVAL);
  }

  /**
   * The sites of {@code group} whose sidecar cannot be read over the control plane (TLS, credential),
   * for the group's Degraded condition. Nothing is fenced or failed over because of it: the sidecar's
   * own rules and the MySQL polls decide those, not this check.
   */
  public List<GroupConditions.Problem> controlPlaneProblems(GroupRef group) {
    return controlPlane.entrySet().stream().filter(e -> e.getKey().group().equals(group))
        .sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(Key::site))).map(Map.Entry::getValue)
        .toList();
  }

  /**
   * The sites of {@code group} whose sidecar no liveness probe restarts should it hang, each with
   * why, for the group's Degraded condition: the emergency failover's wait for such a site's old
   * primary rests on a lease nothing keeps once the sidecar hangs.
   */
  public List<String> unguarded(GroupRef group) {
    return unguarded.entrySet().stream().filter(e -> e.getKey().group().equals(group))
        .sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(Key::site))).map(Map.Entry::getValue)
        .toList();
  }

  /**
   * The sites of {@code group} whose sidecar last said their server is configured to start
   * writable, for the group's Degraded condition.
   */
  public List<String> startingWritable(GroupRef group) {
    return watches.entrySet().stream()
        .filter(e -> e.getKey().group().equals(group) && Boolean.FALSE.equals(e.getValue().last()))
        .map(e -> e.getKey().site()).sorted().toList();
  }

  /**
   * Checks the sites of {@code config} from now on, replacing the group's earlier checks. What was
   * last said of a site that is still named is kept, so that a spec change repeats no Event.
   */
  public synchronized void watch(GroupRef group, GroupConfig config) {
    cancel(group);
    Set<String> named = config.sites().stream().map(SiteSpec::name).collect(Collectors.toSet());
    watches.keySet().removeIf(k -> k.group().equals(group) && !named.contains(k.site()));
    unguarded.keySet().removeIf(k -> k.group().equals(group) && !named.contains(k.site()));
    controlPlane.keySet().removeIf(k -> k.group().equals(group) && !named.contains(k.site()));
    urls.keySet().removeIf(k -> k.group().equals(group));
    Duration every = config.pollInterval().compareTo(interval) > 0 ? config.pollInterval() : interval;
    List<ScheduledFuture<?>> futures = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      if (site.sidecar() == null || site.sidecar().url() == null || site.sidecar().url().isBlank()) {
        continue;
      }
      Key key = new Key(group, site.name());
      urls.put(key, site.sidecar().url());
      // The monitor removed the group's meters on restarting it; the gauge shows the kept answer again.
      Optional.ofNullable(watches.get(key)).ifPresent(w -> metrics.startsReadOnly(group, site.name(), w.last()));
      try {
        futures.add(checks.scheduleWithFixedDelay(() -> checkOnce(key, site), 0, every.toMillis(),
            TimeUnit.MILLISECONDS));
      } catch (RejectedExecutionException e) {
        // Closed on losing leadership: the next leader checks.
        return;
      }
    }
    scheduled.put(group, futures);
  }

  /** Stops checking a group that is no longer watched, and forgets what was said of it. */
  public synchronized void forget(GroupRef group) {
    cancel(group);
    watches.keySet().removeIf(k -> k.group().equals(group));
    unguarded.keySet().removeIf(k -> k.group().equals(group));
    controlPlane.keySet().removeIf(k -> k.group().equals(group));
    urls.keySet().removeIf(k -> k.group().equals(group));
    fences.forget(group);
  }

  private void cancel(GroupRef group) {
    List<ScheduledFuture<?>> futures = scheduled.remove(group);
    if (futures != null) {
      futures.forEach(f -> f.cancel(false));
    }
  }

  /**
   * One check that fails alone: a fixed-delay task that throws is never run again, which would end
   * this site's checks for good.
   */
  private void checkOnce(Key key, SiteSpec site) {
    try {
      checkProbe(key, site);
      checkStartup(key, site.sidecar().url());
    } catch (RuntimeException e) {
      log.warn("{}: the start-up check of site '{}' failed: {}", key.group(), key.site(), e.toString());
      metrics.passFailed(key.group(), "startup-check");
    }
  }

  /**
   * Reads the site's pods for a liveness probe on the sidecar's /health: none is a Warning once
   * and a Degraded problem while it lasts; a pod that cannot be read changes nothing (the next
   * check reads again, and the failover waits out Kubernetes' default probe timing meanwhile).
   */
  private void checkProbe(Key key, SiteSpec site) {
    GuardRestart.Reading reading;
    try {
      reading = probes.apply(key.group(), site);
    } catch (RuntimeException e) {
      log.debug("{}: the pods of site '{}' were not read: {}", key.group(), key.site(), e.toString());
      return;
    }
    if (reading.basis() == GuardRestart.Basis.UNKNOWN) {
      return;
    }
    String problem = reading.basis() == GuardRestart.Basis.NO_PROBE ? "the sidecar of site " + key.site()
        + " is not restarted should it hang: " + reading.problem() + "; an emergency failover then promotes "
        + "after the lease without proof that the old primary is fenced (add the chart's livenessProbe)" : null;
    String before;
    synchronized (this) {
      if (!scheduled.containsKey(key.group())) {
        return;
      }
      before = problem == null ? unguarded.remove(key) : unguarded.put(key, problem);
    }
    if (problem != null && before == null) {
      log.warn("{}: {}", key.group(), problem);
      try {
        events.event(key.group(), Events.SIDECAR_NOT_GUARDED.type().name(), Events.SIDECAR_NOT_GUARDED.reason(),
            problem);
      } catch (RuntimeException e) {
        log.warn("{}: Event {} for site '{}' not written: {}", key.group(), Events.SIDECAR_NOT_GUARDED.reason(),
            key.site(), e.toString());
      }
    }
  }

  private void checkStartup(Key key, String url) {
    Boolean reported;
    SidecarStatusReader.Reading reading;
    try {
      reading = reader.read(key.group(), url);
      reported = reading.startsReadOnly().orElse(null);
      controlPlane(key, null);
    } catch (IOException | RuntimeException e) {
      controlPlane(key, controlPlaneProblem(key.site(), e));
      log.debug("{}: sidecar of site '{}' did not say how its server starts: {}", key.group(), key.site(),
          e.toString());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    Notice notice;
    synchronized (this) {
      if (!scheduled.containsKey(key.group())) {
        return;
      }
      StartsReadOnlyWatch.Step step = watches.getOrDefault(key, StartsReadOnlyWatch.UNKNOWN).next(reported);
      watches.put(key, step.watch());
      metrics.startsReadOnly(key.group(), key.site(), reported);
      notice = step.notice();
    }
    fences.seen(key.group(), key.site(), reading.lastFence());
    if (notice != Notice.NONE) {
      emit(key, notice);
    }
  }

  /**
   * Why a failed read is the control plane's doing, as a Degraded problem naming the site; null for
   * a failure that is not (a sidecar down or cut off is the topology's to judge, not this check's).
   */
  static GroupConditions.Problem controlPlaneProblem(String site, Throwable e) {
    Optional<TlsProblem> tls = TlsProblem.of(e);
    if (tls.isPresent()) {
      return new GroupConditions.Problem(Events.SIDECAR_TLS_ERROR.reason(), "the sidecar of site " + site
          + " cannot be read over HTTPS (" + tls.get().name() + "): " + tls.get().sentence() + "; nothing is fenced "
          + "or failed over because of it; renew the certificate or mount the CA that signs it (TLS_CA_FILE)");
    }
    if (e instanceof SidecarStatusReader.Refused refused) {
      return new GroupConditions.Problem(Events.SIDECAR_CREDENTIAL_PROBLEM.reason(), "the sidecar of site " + site
          + " refused this group's credential (HTTP " + refused.status + "): its AUTH_TOKEN_FILE must hold the "
          + "token of the Secret spec.sidecar.tokenSecretRef names (or, naming none, the install's shared token)");
    }
    if (e instanceof SidecarStatusReader.CredentialUnavailable) {
      return new GroupConditions.Problem(Events.SIDECAR_CREDENTIAL_PROBLEM.reason(), "the sidecar of site " + site
          + " cannot be asked: " + e.getMessage() + "; /active-site answers this group's sidecars 503 meanwhile, "
          + "and they keep their lease through each other");
    }
    return null;
  }

  /** Keeps the site's control-plane problem, with one Warning and a count when it starts or changes reason. */
  private void controlPlane(Key key, GroupConditions.Problem problem) {
    GroupConditions.Problem before;
    synchronized (this) {
      if (!scheduled.containsKey(key.group())) {
        return;
      }
      before = problem == null ? controlPlane.remove(key) : controlPlane.put(key, problem);
    }
    if (problem == null) {
      return;
    }
    metrics.controlPlaneError(key.group(), key.site(), problem.reason());
    if (before == null || !before.reason().equals(problem.reason())) {
      log.warn("{}: {}", key.group(), problem.message());
      try {
        events.event(key.group(), "Warning", problem.reason(), problem.message());
      } catch (RuntimeException e) {
        log.warn("{}: Event {} for site '{}' not written: {}", key.group(), problem.reason(), key.site(), e.toString());
      }
    }
  }

  private void emit(Key key, Notice notice) {
    if (notice == Notice.WRITABLE) {
      log.warn("{}: {}", key.group(), notice.message(key.site()));
    }
    try {
      events.event(key.group(), notice.type, notice.reason, notice.message(key.site()));
    } catch (RuntimeException e) {
      // The state already moved on: one lost Event is better than one per check during an API outage.
      log.warn("{}: Event {} for site '{}' not written: {}", key.group(), notice.reason, key.site(), e.toString());
    }
  }

  /** Stops every check; one running finishes its HTTP call and says nothing. */
  @Override
  public synchronized void close() {
    List.copyOf(scheduled.keySet()).forEach(this::cancel);
    checks.shutdownNow();
  }
}
