package io.shipstream.failover.dev;

import io.shipstream.failover.worker.WorkerApp;
import io.shipstream.failover.worker.WorkerConfig;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A playground stack watched as the chart's ServiceMonitor and rules watch a cluster: the stack's
 * bare worker is replaced by the worker process's own {@link WorkerApp}, which serves
 * {@code /metrics}, and a real {@link PrometheusServer} scrapes it, the watcher and every sidecar
 * every second under the chart's job names, with the chart's alert rules loaded. What
 * {@code ./temporal-dev/playground serve --prometheus} and OnCallIT run. The stack must have its
 * sidecars; closing this stops prometheus and the worker, the stack stays for its owner to close.
 */
final class StackMonitoring implements AutoCloseable {
  static final String WORKER_JOB = "bloodraven-worker";
  static final String WATCHER_JOB = "bloodraven-watcher";
  static final String SIDECAR_JOB = "bloodraven-sidecar";

  private final WorkflowServiceStubs stubs;
  private final WorkerApp worker;
  private final PrometheusServer prometheus;

  private StackMonitoring(WorkflowServiceStubs stubs, WorkerApp worker, PrometheusServer prometheus) {
    this.stubs = stubs;
    this.worker = worker;
    this.prometheus = prometheus;
  }

  /** Swaps in the worker process and starts prometheus with its configuration and data under {@code dir}. */
  static StackMonitoring start(FailoverStack stack, Path dir) throws Exception {
    SidecarMesh sidecars = stack.sidecars().orElseThrow(() -> new IllegalStateException("the stack has no sidecars"));
    stack.controlPlane().killWorker();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(stack.controlPlane().temporalTarget()).build());
    WorkerApp worker = null;
    try {
      worker = WorkerApp.start(WorkerConfig.from(Map.of("HTTP_PORT", "0", "METRICS_REPORT_INTERVAL", "250ms",
          "SHUTDOWN_TIMEOUT", "1s", "AUTH_TOKEN", FailoverStack.SIDECAR_TOKEN), new String[0]),
          stack.api().client(), stubs);
      Map<String, List<String>> jobs = new LinkedHashMap<>();
      jobs.put(WORKER_JOB, List.of("127.0.0.1:" + worker.httpPort()));
      jobs.put(WATCHER_JOB, List.of("127.0.0.1:" + stack.controlPlane().watcherAddress().orElseThrow().getPort()));
      jobs.put(SIDECAR_JOB, stack.servers().keySet().stream().map(s -> "127.0.0.1:" + sidecars.port(s)).toList());
      return new StackMonitoring(stubs, worker, PrometheusServer.start(dir, jobs, PrometheusServer.chartRules()));
    } catch (Exception | Error e) {
      if (worker != null) {
        worker.close();
      }
      stubs.shutdownNow();
      throw e;
    }
  }

  PrometheusServer prometheus() {
    return prometheus;
  }

  @Override
  public void close() {
    prometheus.close();
    worker.close();
    stubs.shutdownNow();
  }
}
