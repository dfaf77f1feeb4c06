package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.kube.Conflicts;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.GroupDeletion;
import java.util.ArrayList;
import java.util.List;

/**
 * The finalizer {@value GroupDeletion#FINALIZER} in a group's metadata on the API server: read
 * afresh, added and removed by JSON patch. Each patch tests what it was built from and is retried
 * on a conflict, so another writer's finalizers are never overwritten; {@link GroupFinalizer}
 * decides when.
 */
final class FinalizerPatches {
  private static final ResourceDefinitionContext GROUPS = ResourceDefinitionContext.fromResourceType(
      MysqlFailoverGroup.class);

  private final KubernetesClient client;

  FinalizerPatches(KubernetesClient client) {
    this.client = client;
  }

  /** The group as the API server has it now; null when it is gone. */
  GenericKubernetesResource read(GroupRef ref) {
    return groups(ref).withName(ref.name()).get();
  }

  /** Adds the finalizer to a live group that lacks it; whether it was added. */
  boolean add(GroupRef ref) {
    return Conflicts.retry("finalizers of " + ref, () -> {
      GenericKubernetesResource now = read(ref);
      if (now == null || now.getMetadata().getDeletionTimestamp() != null) {
        return false;
      }
      List<String> finalizers = now.getMetadata().getFinalizers();
      if (finalizers != null && finalizers.contains(GroupDeletion.FINALIZER)) {
        return false;
      }
      // An absent list is added whole, guarded by the resourceVersion (an add on a list someone
      // created meanwhile would replace it); an existing one gets ours appended.
      JsonPatch patch = finalizers == null || finalizers.isEmpty()
          ? new JsonPatch().test("/metadata/resourceVersion", now.getMetadata().getResourceVersion())
              .add("/metadata/finalizers", List.of(GroupDeletion.FINALIZER))
          : new JsonPatch().add("/metadata/finalizers/-", GroupDeletion.FINALIZER);
      patch(ref, patch);
      return true;
    });
  }

  /** Removes the finalizer, if the group still has it; a group gone meanwhile is no error. */
  void remove(GroupRef ref) {
    Conflicts.retry("finalizers of " + ref, () -> {
      GenericKubernetesResource now = read(ref);
      List<String> finalizers = now == null ? null : now.getMetadata().getFinalizers();
      if (finalizers == null || !finalizers.contains(GroupDeletion.FINALIZER)) {
        return false;
      }
      List<String> kept = new ArrayList<>(finalizers);
      kept.remove(GroupDeletion.FINALIZER);
      JsonPatch patch = new JsonPatch().test("/metadata/finalizers", finalizers);
      if (kept.isEmpty()) {
        patch.remove("/metadata/finalizers");
      } else {
        patch.add("/metadata/finalizers", kept);
      }
      try {
        patch(ref, patch);
      } catch (KubernetesClientException e) {
        // Gone meanwhile: another leader finished it.
        if (!Conflicts.isNotFound(e)) {
          throw e;
        }
      }
      return true;
    });
  }

  private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource,
      io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
      io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> groups(
      GroupRef ref) {
    return client.genericKubernetesResources(GROUPS).inNamespace(ref.namespace());
  }

  private void patch(GroupRef ref, JsonPatch patch) {
    groups(ref).resource(JsonPatch.target(new GenericKubernetesResource(), ref.namespace(), ref.name()))
        .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
  }
}
