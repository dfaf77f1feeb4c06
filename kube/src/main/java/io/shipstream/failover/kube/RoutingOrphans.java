package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the group's ownerReference off the routing it created (its Services and its DNSEndpoint,
 * every object labelled {@code shipstream.io/group=<group>} that names the group as an owner), so
 * that a real API server's garbage collector leaves them in place when the group is deleted: the
 * application keeps its database endpoint. Run by the watcher's finalizer before it lets the group
 * go; every other owner reference stays.
 *
 * <p>Each write replaces the whole list guarded by a {@code test} of the list as it was read, so a
 * reference someone added meanwhile is never dropped (the patch fails and is recomputed).
 */
public final class RoutingOrphans {
  private static final Logger log = LoggerFactory.getLogger(RoutingOrphans.class);

  private final KubernetesClient client;

  public RoutingOrphans(KubernetesClient client) {
    this.client = client;
  }

  /** Releases every routing object of the group owned by the object {@code uid}; what was released, by kind and name. */
  public List<String> release(GroupRef group, String uid) {
    List<String> released = new ArrayList<>();
    for (Service service : client.services().inNamespace(group.namespace())
        .withLabel(SiteRoles.GROUP_LABEL, group.name()).list().getItems()) {
      String name = service.getMetadata().getName();
      if (ownedBy(service, group, uid)
          && Conflicts.retry("owners of Service " + name, () -> releaseService(group, name, uid))) {
        released.add("Service " + name);
      }
    }
    List<GenericKubernetesResource> records;
    try {
      records = client.genericKubernetesResources(DnsRecords.CONTEXT).inNamespace(group.namespace())
          .withLabel(SiteRoles.GROUP_LABEL, group.name()).list().getItems();
    } catch (KubernetesClientException e) {
      if (!Conflicts.isNotFound(e)) {
        throw e;
      }
      // No DNSEndpoint CRD in this cluster (external-dns is optional): no record to release.
      records = List.of();
    }
    for (GenericKubernetesResource record : records) {
      String name = record.getMetadata().getName();
      if (ownedBy(record, group, uid)
          && Conflicts.retry("owners of DNSEndpoint " + name, () -> releaseRecord(group, name, uid))) {
        released.add(DnsRecords.KIND + " " + name);
      }
    }
    return released;
  }

  private boolean releaseService(GroupRef group, String name, String uid) {
    Service current = client.services().inNamespace(group.namespace()).withName(name).get();
    if (current == null || !ownedBy(current, group, uid)) {
      return false;
    }
    client.services().inNamespace(group.namespace()).resource(JsonPatch.target(new Service(), group.namespace(), name))
        .patch(PatchContext.of(PatchType.JSON), patch(current, group, uid));
    log.info("Released Service {}/{} from {}: it stays when the group is deleted", group.namespace(), name, group);
    return true;
  }

  private boolean releaseRecord(GroupRef group, String name, String uid) {
    var records = client.genericKubernetesResources(DnsRecords.CONTEXT).inNamespace(group.namespace());
    GenericKubernetesResource current = records.withName(name).get();
    if (current == null || !ownedBy(current, group, uid)) {
      return false;
    }
    records.resource(JsonPatch.target(new GenericKubernetesResource(), group.namespace(), name))
        .patch(PatchContext.of(PatchType.JSON), patch(current, group, uid));
    log.info("Released DNSEndpoint {}/{} from {}: it stays when the group is deleted", group.namespace(), name, group);
    return true;
  }

  private String patch(HasMetadata current, GroupRef group, String uid) {
    List<OwnerReference> owners = current.getMetadata().getOwnerReferences();
    List<OwnerReference> kept = owners.stream().filter(o -> !names(o, group, uid)).toList();
    JsonPatch patch = new JsonPatch().test("/metadata/ownerReferences", owners);
    if (kept.isEmpty()) {
      patch.remove("/metadata/ownerReferences");
    } else {
      patch.add("/metadata/ownerReferences", kept);
    }
    return client.getKubernetesSerialization().asJson(patch.operations());
  }

  private static boolean ownedBy(HasMetadata object, GroupRef group, String uid) {
    List<OwnerReference> owners = object.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> names(o, group, uid));
  }

  /** A reference to this very group: its uid when known (a group of the same name created again has another). */
  private static boolean names(OwnerReference owner, GroupRef group, String uid) {
    return "MysqlFailoverGroup".equals(owner.getKind()) && (uid != null ? uid.equals(owner.getUid())
        : group.name().equals(owner.getName()));
  }
}
