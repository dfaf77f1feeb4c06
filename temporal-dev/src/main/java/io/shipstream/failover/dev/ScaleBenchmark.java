package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.shipstream.failover.dev.ScaleStack.Group;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * G groups failing over at once on one control plane (one Temporal server, one worker, one
 * watcher): every group is annotated at the same instant, and the run ends when the last one's
 * status says Succeeded. First each group fails over once on its own (warm-up, not counted), then
 * group 1 alone three times (the single-group time on this same loaded stack), then all G at
 * once, there and back. Numbers are printed, never asserted.
 */
final class ScaleBenchmark {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private ScaleBenchmark() {}

  /** One all-at-once round: the time from the first annotation to the last Succeeded, and per group. */
  record Round(int groups, double totalMs, double slowestMs, String slowestGroup, List<Double> groupMs,
      double jvmCpuMs, double loadAverage, int apiRequests, double machineBusyMs) {}

  record Result(int groups, List<Round> single, List<Round> rounds, String profile, double watcherCpuMsPerGroupMinute) {
    List<Double> singleMs() {
      return single.stream().map(Round::totalMs).toList();
    }
  }

  static Result measure(Path work, int groupCount) {
    Playground.deleteQuietly(work);
    try (ScaleStack stack = ScaleStack.start(work, groupCount)) {
      System.out.printf("scale: %d groups (%d mariadbd) up%n", groupCount, groupCount * 2);
      double steady = watcherCpuPerGroupMinute(groupCount, STEADY);
      System.out.printf("scale: steady state, no failover: the watcher's monitor used %.0f ms of CPU per group per "
          + "minute%n", steady);
      for (Group g : stack.groups()) {
        round(stack, List.of(g));
      }
      List<Round> single = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Round r = round(stack, List.of(stack.groups().get(0)));
        single.add(r);
        System.out.printf("scale: group 1 alone: %.0f ms (JVM CPU %.0f ms, %d API requests)%n", r.totalMs(),
            r.jvmCpuMs(), r.apiRequests());
      }
      List<Round> rounds = new ArrayList<>();
      // -Dbenchmark.jfr=FILE records a flight recording of the all-at-once rounds only.
      jdk.jfr.Recording recording = startRecording();
      for (int i = 0; i < 2; i++) {
        Round r = round(stack, stack.groups());
        rounds.add(r);
        System.out.printf(
            "scale: %d groups at once: all Succeeded after %.0f ms, slowest %s %.0f ms (JVM CPU %.0f ms)%n",
            groupCount, r.totalMs(), r.slowestGroup(), r.slowestMs(), r.jvmCpuMs());
      }
      stopRecording(recording);
      String profile = HistoryProfile.of(stack.temporalClient(), stack.groups().stream()
          .map(ScaleBenchmark::workflowId).toList()).table();
      return new Result(groupCount, single, rounds, profile, steady);
    } finally {
      Playground.deleteQuietly(work);
    }
  }

  /** How long the steady state is measured: a minute, after the adoption has settled. */
  private static final Duration STEADY = Duration.ofSeconds(60);

  /**
   * The CPU the watcher's topology monitor (its poll, evaluation and sidecar-check threads, which
   * poll every site, write status and conditions and keep the routing right) uses in a steady
   * state with nothing failing over, per group and per minute. The informers' threads are shared
   * with the worker's client in this JVM and are not counted.
   */
  static double watcherCpuPerGroupMinute(int groups, Duration window) {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    Playground.sleep(5_000);
    long before = monitorCpuNanos(threads);
    Playground.sleep(window.toMillis());
    long used = monitorCpuNanos(threads) - before;
    return used / 1e6 / groups * (60_000.0 / window.toMillis());
  }

  private static long monitorCpuNanos(java.lang.management.ThreadMXBean threads) {
    long total = 0;
    for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null
          && (info.getThreadName().startsWith("topology-") || info.getThreadName().startsWith("sidecar-status"))) {
        long cpu = threads.getThreadCpuTime(info.getThreadId());
        total += Math.max(0, cpu);
      }
    }
    return total;
  }

  /** Annotates every group of {@code batch} at once (each to its other site); waits for all. */
  private static Round round(ScaleStack stack, List<Group> batch) {
    Map<String, MysqlFailoverGroup> before = stack.resources();
    String startedAfter = Instant.now().toString();
    Map<String, Long> annotatedAt = new java.util.concurrent.ConcurrentHashMap<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (Group g : batch) {
      String active = before.get(g.ref().name()).getStatus().activeSite();
      String target = "iad".equals(active) ? "pdx" : "iad";
      Thread t = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        annotatedAt.put(g.ref().name(), System.nanoTime());
        stack.annotate(g.ref(), target);
      }, "annotate-" + g.ref().name());
      t.start();
      threads.add(t);
    }
    // The ends are seen through a watch, not by polling: 20 groups polled every few milliseconds
    // would load the API server the failovers are using.
    Map<String, Long> done = new java.util.concurrent.ConcurrentHashMap<>();
    Map<String, String> failed = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    batch.forEach(g -> names.add(g.ref().name()));
    Watcher<MysqlFailoverGroup> ends = new Watcher<>() {
      @Override
      public void eventReceived(Action action, MysqlFailoverGroup g) {
        String name = g.getMetadata().getName();
        PlannedFailoverStatus s = ScaleStack.planned(g).orElse(null);
        if (names.contains(name) && s != null && s.startTime() != null && s.startTime().compareTo(startedAfter) >= 0
            && Timeline.ended(s)) {
          done.putIfAbsent(name, System.nanoTime());
          if (!"Succeeded".equals(s.phase())) {
            failed.putIfAbsent(name, s.phase() + ": " + s.message());
          }
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        // Closed by the benchmark at the end of the round.
      }
    };
    long start;
    long cpuBefore = processCpuNanos();
    int requestsBefore = stack.apiRequests();
    double busyBefore = machineBusyMs();
    try (Watch watch = stack.kubernetes().resources(MysqlFailoverGroup.class).inNamespace(MockCluster.NAMESPACE)
        .watch(ends)) {
      start = System.nanoTime();
      go.countDown();
      long until = System.nanoTime() + TIMEOUT.toNanos();
      while (done.size() < batch.size()) {
        if (!failed.isEmpty()) {
          throw new IllegalStateException("failovers ended Failed: " + failed);
        }
        if (System.nanoTime() > until) {
          StringBuilder stuck = new StringBuilder();
          batch.stream().filter(g -> !done.containsKey(g.ref().name()))
              .forEach(g -> stuck.append('\n').append(HistoryProfile.describe(stack.temporalClient(), workflowId(g))));
          throw new IllegalStateException("only " + done.size() + " of " + batch.size() + " groups ended within "
              + TIMEOUT + ":" + stuck);
        }
        Playground.sleep(5);
      }
    }
    double cpuMs = (processCpuNanos() - cpuBefore) / 1e6;
    int apiRequests = stack.apiRequests() - requestsBefore;
    double machineBusy = machineBusyMs() - busyBefore;
    threads.forEach(ScaleBenchmark::join);
    // The annotation must be gone before the next round annotates again.
    long clearedBy = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < clearedBy
        && stack.resources().values().stream().anyMatch(g ->
        g.getMetadata().getAnnotations() != null
            && g.getMetadata().getAnnotations().containsKey(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION))) {
      Playground.sleep(100);
    }
    List<Double> per = new ArrayList<>();
    String slowest = null;
    double slowestMs = 0;
    for (Map.Entry<String, Long> e : done.entrySet()) {
      double ms = (e.getValue() - annotatedAt.get(e.getKey())) / 1e6;
      per.add(ms);
      if (ms >= slowestMs) {
        slowestMs = ms;
        slowest = e.getKey();
      }
    }
    double total = (done.values().stream().mapToLong(Long::longValue).max().orElse(start) - start) / 1e6;
    return new Round(batch.size(), total, slowestMs, slowest, per, cpuMs,
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), apiRequests,
        machineBusy);
  }

  /**
   * CPU this JVM used (the worker, the watcher, Temporal's server, the mock API server and the
   * benchmark itself; not the mariadbd processes): next to the wall time it shows whether a round
   * waited on something or was simply short of processor time.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * Processor time every process on the machine has used since boot (the first line of
   * /proc/stat: user, nice, system, irq, softirq; 100 ticks a second), NaN where there is
   * none. Its growth over a round divided by the cores is the least wall time the round could
   * have taken, whatever the code did.
   */
  static double machineBusyMs() {
    try {
      String[] f = java.nio.file.Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long ticks = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
          + Long.parseLong(f[7]);
      return ticks * 10.0;
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  private static jdk.jfr.Recording startRecording() {
    String file = System.getProperty("benchmark.jfr");
    if (file == null) {
      return null;
    }
    try {
      jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
      recording.setDestination(Path.of(file));
      recording.start();
      return recording;
    } catch (java.io.IOException | java.text.ParseException e) {
      throw new IllegalStateException("cannot start a flight recording: " + e.getMessage(), e);
    }
  }

  private static void stopRecording(jdk.jfr.Recording recording) {
    if (recording != null) {
      recording.stop();
      recording.close();
      System.out.println("scale: flight recording of the rounds in " + System.getProperty("benchmark.jfr"));
    }
  }

  private static String workflowId(Group g) {
    return "mysqlfailovergroup/" + g.ref().namespace() + "/" + g.ref().name();
  }

  private static void join(Thread t) {
    try {
      t.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
