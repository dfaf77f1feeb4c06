package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The real {@link DrainWatch.Kube}: a site's pods as the routing finds them (the kube module's
 * {@link SiteRoles#pods}, by the site's podSelector), a GET of each one's node, and the request as
 * a JSON patch that tests the group's resourceVersion first, so a planned-failover annotation a
 * person set meanwhile is never overwritten.
 */
public final class KubeDrainView implements DrainWatch.Kube {
  private final KubernetesClient client;
  private final SiteRoles roles;

  public KubeDrainView(KubernetesClient client) {
    this.client = client;
    // Only pods() is used: it creates nothing, so no owner reference is needed.
    this.roles = new SiteRoles(client, group -> Optional.empty());
  }

  @Override
  public List<String> cordonedNodes(GroupRef group, SiteSpec site) {
    List<Pod> pods = roles.pods(group, site);
    return pods.stream().map(p -> p.getSpec() == null ? null : p.getSpec().getNodeName()).filter(Objects::nonNull)
        .distinct().filter(this::cordoned).toList();
  }

  private boolean cordoned(String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    return node != null && node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  @Override
  public boolean requestPlanned(GroupRef group, MysqlFailoverGroup seen, String value) {
    if (tryRequest(group, seen, value)) {
      return true;
    }
    // The cached copy is usually a status write behind: read the group once and try again.
    MysqlFailoverGroup fresh = client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace())
        .withName(group.name()).get();
    return fresh != null && tryRequest(group, fresh, value);
  }

  private boolean tryRequest(GroupRef group, MysqlFailoverGroup seen, String value) {
    Map<String, String> annotations = seen.getMetadata().getAnnotations();
    if (annotations != null && annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION) != null) {
      return false;
    }
    JsonPatch patch = new JsonPatch().test("/metadata/resourceVersion", seen.getMetadata().getResourceVersion());
    if (annotations == null) {
      patch.add("/metadata/annotations", Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value));
    } else {
      patch.add(JsonPatch.pointer("metadata", "annotations", MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION), value);
    }
    try {
      client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace())
          .resource(JsonPatch.target(new MysqlFailoverGroup(), group.namespace(), group.name()))
          .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
      return true;
    } catch (KubernetesClientException e) {
      // 422: the group changed since it was read (a status write, or a person's annotation).
      if (e.getCode() != 422 && e.getCode() != 409) {
        throw e;
      }
      return false;
    }
  }
}
