package io.shipstream.failover.activities.sidecar;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.runtime.ControlPlaneTls;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The watcher's replicas as the API server lists their pods: those matching WATCHER_POD_SELECTOR
 * in WATCHER_NAMESPACE, each reached at its pod IP on its container port named {@code https}
 * (verified against WATCHER_TLS_NAME, the Service's name its certificate carries) or, without a TLS
 * name, {@code http}. A pod that has not started any container yet has answered nothing and is
 * left out; any other pod that is not running, or has no address or no such port, makes the list
 * fail: it may have renewed a lease, and what it answered cannot be read.
 */
public final class PodWatcherReplicas implements WatcherReplicas {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  private static final java.util.regex.Pattern LABEL_KEY =
      java.util.regex.Pattern.compile("([a-z0-9]([a-z0-9.-]*[a-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");
  private static final java.util.regex.Pattern LABEL_VALUE =
      java.util.regex.Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");

  private final KubernetesClient kubernetes;
  private final String namespace;
  private final Map<String, String> labels;
  private final String tlsName;
  private final HttpClient client;

  /**
   * @param selector {@code key=value} pairs, comma-separated
   * @param tlsName the name the replicas' certificates carry; null: plain http
   */
  public PodWatcherReplicas(KubernetesClient kubernetes, String namespace, String selector, ControlPlaneTls tls,
      String tlsName) {
    this.kubernetes = Objects.requireNonNull(kubernetes, "kubernetes");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.labels = labels(selector);
    this.tlsName = tlsName == null || tlsName.isBlank() ? null : tlsName;
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
    if (this.tlsName != null) {
      builder.sslContext(tls.clientContextFor(this.tlsName));
    }
    this.client = builder.build();
  }

  /** {@code a=b,c=d} as a map; throws for anything else. */
  public static Map<String, String> labels(String selector) {
    if (selector == null || selector.isBlank()) {
      throw new IllegalArgumentException("a label selector (key=value,...) is required");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    for (String pair : selector.split(",")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? "" : pair.substring(0, eq).trim();
      String value = eq < 0 ? "" : pair.substring(eq + 1).trim();
      // The patterns refuse an empty key or value and any further '=' or '!'.
      if (!LABEL_KEY.matcher(key).matches() || !LABEL_VALUE.matcher(value).matches()) {
        throw new IllegalArgumentException("'" + pair.trim() + "' is not key=value (only equality selectors)");
      }
      labels.put(key, value);
    }
    return labels;
  }

  @Override
  public Listing list() throws IOException {
    List<Pod> pods;
    try {
      pods = kubernetes.pods().inNamespace(namespace).withLabels(labels).list().getItems();
    } catch (KubernetesClientException e) {
      throw new IOException("the watcher's pods cannot be listed: " + e.getMessage(), e);
    }
    String portName = tlsName != null ? "https" : "http";
    List<Replica> replicas = new ArrayList<>();
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      if (neverStarted(pod)) {
        continue;
      }
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
      if (!"Running".equals(phase) || ip == null || ip.isBlank()) {
        throw new IOException("watcher pod " + name + " is " + phase + (ip == null ? " without an address" : "")
            + ": what it last answered cannot be read");
      }
      Integer port = port(pod, portName);
      if (port == null) {
        throw new IOException("watcher pod " + name + " has no container port named " + portName);
      }
      String host = ip.contains(":") ? "[" + ip + "]" : ip;
      replicas.add(new Replica(name, (tlsName != null ? "https://" : "http://") + host + ":" + port));
    }
    return new Listing(replicas, client);
  }

  /** A pod none of whose containers has run yet (Pending, every container waiting, none restarted). */
  static boolean neverStarted(Pod pod) {
    if (pod.getStatus() == null || !"Pending".equals(pod.getStatus().getPhase())) {
      return false;
    }
    List<ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
    if (statuses == null) {
      return true;
    }
    for (ContainerStatus s : statuses) {
      boolean ran = s.getState() == null || s.getState().getWaiting() == null
          || (s.getRestartCount() != null && s.getRestartCount() > 0)
          || (s.getLastState() != null && s.getLastState().getTerminated() != null);
      if (ran) {
        return false;
      }
    }
    return true;
  }

  private static Integer port(Pod pod, String name) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return null;
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (name.equals(p.getName())) {
          return p.getContainerPort();
        }
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "pods " + labels + " in " + namespace + (tlsName == null ? " over http" : " over https as " + tlsName);
  }
}
