package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-group read-only taint: {@code shipstream.io/db-readonly-<group>=true:NoExecute} on the
 * nodes of every site but the active one, so application pods that do not tolerate it leave the
 * sites that cannot take writes.
 *
 * <p>Node taints are a list that the node lifecycle controller edits too (unreachable,
 * not-ready...), so a patch that addresses list elements by index could remove someone else's
 * taint. Each write therefore replaces the whole list guarded by a {@code test} of the list as
 * it was read: if anyone changed it meanwhile the patch fails atomically and is recomputed.
 * The guard is the taints, not the resourceVersion, because node heartbeats bump the
 * resourceVersion far more often than anyone touches taints.
 *
 * <p>A NoExecute taint evicts every pod that does not tolerate it, so no node is tainted while any
 * of the group's own MySQL pods would not tolerate the taint: evicting a replica, or the old primary
 * a switchover just demoted, is never acceptable. The taint is then still removed where it must
 * not be (removing evicts nothing), and the pods are named to the caller. The failover activities
 * and the watcher's routing repair both go through {@link #apply}, so the rule is the same.
 */
public final class NodeTaints {
  private static final Logger log = LoggerFactory.getLogger(NodeTaints.class);
  public static final String KEY_PREFIX = "shipstream.io/db-readonly-";
  public static final String EFFECT = "NoExecute";
  public static final String VALUE = "true";

  private final KubernetesClient client;

  public NodeTaints(KubernetesClient client) {
    this.client = client;
  }

  /** The active site is no site of the group: nothing is tainted, since every site would be. */
  public static final class UnknownSiteException extends IllegalArgumentException {
    UnknownSiteException(String message) {
      super(message);
    }
  }

  public static String taintKey(GroupRef group) {
    return KEY_PREFIX + group.name();
  }

  /**
   * What one pass did: the nodes whose taints changed, and the group's own pods that would not
   * tolerate the taint (when there are any, no node was tainted, only untainted).
   */
  public record Placement(List<String> changed, List<String> intolerant) {
    public boolean everyPodTolerates() {
      return intolerant.isEmpty();
    }

    /** Why no node was tainted, for a condition or an Event; null when every pod tolerates. */
    public String problem(GroupRef group) {
      return everyPodTolerates() ? null : "pod(s) " + String.join(", ", intolerant) + " do not tolerate the "
          + taintKey(group) + ":" + EFFECT + " taint, so no node is tainted (it would evict them); add the "
          + "toleration to the MySQL pods";
    }
  }

  /**
   * Taints the nodes of every site but the active one and untaints the active site's, unless one
   * of {@code groupPods} (the group's MySQL pods, every site's) would not tolerate the taint: then
   * the taint is only removed where it must not be.
   */
  public Placement apply(GroupRef group, List<SiteSpec> sites, String activeSite, List<Pod> groupPods) {
    String key = taintKey(group);
    List<String> intolerant = groupPods.stream().filter(p -> !tolerates(p, key))
        .map(p -> p.getMetadata().getName()).toList();
    List<String> changed = apply(group, sites, activeSite, intolerant.isEmpty());
    if (!intolerant.isEmpty()) {
      log.warn("No node of {} tainted: pod(s) {} do not tolerate {}:{}", group, intolerant, key, EFFECT);
    }
    return new Placement(changed, intolerant);
  }

  /** Whether the pod tolerates our NoExecute taint for good, as the kubelet would decide it. */
  public static boolean tolerates(Pod pod, String key) {
    List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    if (tolerations == null) {
      return false;
    }
    for (Toleration t : tolerations) {
      boolean effect = t.getEffect() == null || t.getEffect().isEmpty() || EFFECT.equals(t.getEffect());
      boolean exists = "Exists".equals(t.getOperator());
      boolean keyMatches = t.getKey() == null || t.getKey().isEmpty() ? exists : key.equals(t.getKey());
      boolean valueMatches = exists || Objects.equals(VALUE, t.getValue());
      // A toleration with tolerationSeconds is evicted once they run out: not tolerated for good.
      if (effect && keyMatches && valueMatches && t.getTolerationSeconds() == null) {
        return true;
      }
    }
    return false;
  }

  /** As {@link #apply(GroupRef, List, String, List)}; {@code mayTaint} false: only removes. The nodes changed. */
  private List<String> apply(GroupRef group, List<SiteSpec> sites, String activeSite, boolean mayTaint) {
    if (sites.stream().noneMatch(s -> s.name().equals(activeSite))) {
      // Tainting every site would evict the applications everywhere: refuse instead.
      throw new UnknownSiteException("Active site " + activeSite + " is not a site of " + group);
    }
    // Node name -> whether it must carry the taint. A node selected by the active site and by
    // another one stays untainted: evicting applications from the writable site is the worse error.
    Map<String, Boolean> wanted = new TreeMap<>();
    Map<String, Node> listed = new java.util.HashMap<>();
    // Each site's nodes listed side by side (a request per site), then merged in the sites' order.
    List<List<Node>> perSite = sites.parallelStream().map(site -> {
      Map<String, String> selector = site.taintNodeSelector();
      return selector == null || selector.isEmpty() ? List.<Node>of() : selectedNodes(selector);
    }).toList();
    for (int i = 0; i < sites.size(); i++) {
      SiteSpec site = sites.get(i);
      Map<String, String> selector = site.taintNodeSelector();
      // An empty selector would select every node of the cluster, so it is treated as absent.
      if (selector == null || selector.isEmpty()) {
        log.warn("Site {} of {} has no taintNodeSelector; its nodes are not tainted", site.name(), group);
        continue;
      }
      boolean taint = !site.name().equals(activeSite);
      for (Node node : perSite.get(i)) {
        wanted.merge(node.getMetadata().getName(), taint, Boolean::logicalAnd);
        listed.put(node.getMetadata().getName(), node);
      }
    }
    String key = taintKey(group);
    // An existing taint left alone when none may be added evicted nothing so far, a new one would.
    // Each node is patched on its own, so side by side (in the nodes' order in the result).
    List<String> changed = wanted.entrySet().parallelStream()
        .filter(e -> mayTaint || !e.getValue())
        .filter(e -> reconcileFrom(listed.get(e.getKey()), key, e.getValue()))
        .map(Map.Entry::getKey).toList();
    return changed;
  }

  /**
   * Removes the group's taint from every node of the cluster that carries it, whatever selected the
   * node when it was tainted (a site's taintNodeSelector edited since included): the group is being
   * deleted, and a taint nobody manages any more would keep its nodes closed to the applications
   * for good. Removing evicts nothing. The nodes changed.
   */
  public List<String> removeEverywhere(GroupRef group) {
    String key = taintKey(group);
    List<Node> carrying = client.nodes().list().getItems().stream()
        .filter(n -> n.getSpec() != null && n.getSpec().getTaints() != null && n.getSpec().getTaints().stream()
            .anyMatch(t -> key.equals(t.getKey()) && EFFECT.equals(t.getEffect())))
        .toList();
    return removeFrom(carrying, key);
  }

  /**
   * Removes the group's taint from the nodes its sites select, and from no other: the taint key
   * names the group, not its namespace, so a group of the same name in another namespace may hold
   * the same taint on its own nodes. The nodes changed.
   */
  public List<String> removeFromSites(GroupRef group, List<SiteSpec> sites) {
    Map<String, Node> selected = new java.util.LinkedHashMap<>();
    for (SiteSpec site : sites) {
      Map<String, String> selector = site.taintNodeSelector();
      if (selector == null || selector.isEmpty()) {
        continue;
      }
      for (Node node : selectedNodes(selector)) {
        selected.putIfAbsent(node.getMetadata().getName(), node);
      }
    }
    return removeFrom(List.copyOf(selected.values()), taintKey(group));
  }

  /**
   * The nodes a site's (non-empty) taintNodeSelector selects, the labels checked again on what the
   * API server listed, as both the tainting and the removal always did.
   */
  private List<Node> selectedNodes(Map<String, String> selector) {
    return client.nodes().withLabels(selector).list().getItems().stream()
        .filter(n -> n.getMetadata().getLabels() != null
            && n.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }

  private List<String> removeFrom(List<Node> nodes, String key) {
    List<String> changed = new ArrayList<>();
    for (Node node : nodes) {
      if (reconcileFrom(node, key, false)) {
        changed.add(node.getMetadata().getName());
      }
    }
    return changed;
  }

  /**
   * Brings one node's taint to what is wanted. The first attempt works on the node as it was just
   * listed, without reading it again: its patch tests the resourceVersion or the taint list it
   * read, so a node changed since makes the API server refuse it, and every later attempt reads
   * the node anew.
   */
  boolean reconcileFrom(Node listed, String key, boolean taint) {
    String nodeName = listed.getMetadata().getName();
    boolean[] first = {true};
    return Conflicts.retry("taints of node " + nodeName, () -> {
      Node node = first[0] ? listed : client.nodes().withName(nodeName).get();
      first[0] = false;
      return reconcile(nodeName, node, key, taint);
    });
  }

  private boolean reconcile(String nodeName, Node node, String key, boolean taint) {
    if (node == null) {
      log.info("Node {} is gone; no taint to reconcile", nodeName);
      return false;
    }
    List<Taint> current = node.getSpec() == null ? null : node.getSpec().getTaints();
    List<Taint> desired = desired(current, key, taint);
    List<Taint> before = current == null ? List.of() : current;
    if (desired.equals(before)) {
      return false;
    }
    JsonPatch patch = new JsonPatch();
    if (node.getSpec() == null) {
      patch.test("/metadata/resourceVersion", node.getMetadata().getResourceVersion())
          .add("/spec", Map.of("taints", desired));
    } else if (current == null || current.isEmpty()) {
      // fabric8 reads an absent list as empty, and the API server omits an empty one, so the
      // field may not exist: add works either way, and nothing else can be tested for.
      patch.test("/metadata/resourceVersion", node.getMetadata().getResourceVersion())
          .add("/spec/taints", desired);
    } else if (desired.isEmpty()) {
      patch.test("/spec/taints", current).remove("/spec/taints");
    } else {
      patch.test("/spec/taints", current).add("/spec/taints", desired);
    }
    client.nodes().resource(JsonPatch.target(new Node(), null, nodeName))
        .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
    log.info("{} taint {}={}:{} on node {}", taint ? "Added" : "Removed", key, VALUE, EFFECT, nodeName);
    return true;
  }

  /**
   * The taint list with ours present or absent and every other taint in its place. A taint is
   * identified by key and effect, as the API server does, so a same-key taint with another
   * effect belongs to someone else and is kept.
   */
  public static List<Taint> desired(List<Taint> current, String key, boolean taint) {
    List<Taint> result = new ArrayList<>();
    boolean present = false;
    for (Taint t : current == null ? List.<Taint>of() : current) {
      boolean ours = key.equals(t.getKey()) && EFFECT.equals(t.getEffect());
      if (!ours) {
        result.add(t);
      } else if (taint && !present && VALUE.equals(t.getValue())) {
        // Kept as is, timeAdded included, so that re-applying changes nothing.
        result.add(t);
        present = true;
      }
    }
    if (taint && !present) {
      result.add(new TaintBuilder().withKey(key).withValue(VALUE).withEffect(EFFECT).build());
    }
    return result;
  }
}
