package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.RoleLabel;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The role labels on a site's MySQL pods and the {@code mysql-<group>-primary} Service that
 * follows the {@code role=primary} label: moving the label moves the writes.
 */
public final class SiteRoles {
  private static final Logger log = LoggerFactory.getLogger(SiteRoles.class);
  public static final String ROLE_LABEL = "shipstream.io/role";
  public static final String GROUP_LABEL = "shipstream.io/group";
  public static final String PRIMARY = RoleLabel.PRIMARY;
  public static final int MYSQL_PORT = 3306;

  private final KubernetesClient client;
  private final Owners owners;

  public SiteRoles(KubernetesClient client, Owners owners) {
    this.client = client;
    this.owners = owners;
  }

  public static final String REPLICA = RoleLabel.REPLICA;

  public static String serviceName(GroupRef group) {
    return "mysql-" + group.name() + "-primary";
  }

  /** The Service of the replicas that serve reads: reachable and replicating (label {@code role=replica}). */
  public static String replicasServiceName(GroupRef group) {
    return "mysql-" + group.name() + "-replicas";
  }

  /** Labels the site's pods with {@code role} and makes sure the primary Service exists; how many pods changed. */
  public int setSiteRole(GroupRef group, SiteSpec site, String role) {
    Map<String, String> selector = site.podSelector();
    // An empty selector would match every pod in the namespace, so it is treated as absent.
    if (selector == null || selector.isEmpty()) {
      log.info("Site {} of {} has no podSelector; no pod labels to set to role {}", site.name(), group, role);
      return 0;
    }
    List<Pod> pods = pods(group, site);
    if (pods.isEmpty()) {
      log.warn("podSelector {} of site {} in {} matches no pod", selector, site.name(), group);
    }
    int changed = setRole(group, pods, role);
    ensureService(group, serviceName(group), PRIMARY);
    return changed;
  }

  /** Labels {@code pods} (a site's, as {@link #pods} found them) with {@code role}; how many changed. */
  public int setRole(GroupRef group, List<Pod> pods, String role) {
    int changed = 0;
    for (Pod pod : pods) {
      if (label(group, pod, role)) {
        changed++;
      }
    }
    return changed;
  }

  /**
   * The pods the site's podSelector matches; none without a selector. The server already filtered
   * by the selector; checking again costs nothing and means a server that ignored the selector can
   * never get every pod relabelled.
   */
  public List<Pod> pods(GroupRef group, SiteSpec site) {
    Map<String, String> selector = site.podSelector();
    if (selector == null || selector.isEmpty()) {
      return List.of();
    }
    return client.pods().inNamespace(group.namespace()).withLabels(selector).list().getItems().stream()
        .filter(p -> p.getMetadata().getLabels() != null
            && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
        .toList();
  }

  private boolean label(GroupRef group, Pod pod, String role) {
    String name = pod.getMetadata().getName();
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (Objects.equals(labels.get(ROLE_LABEL), role) && Objects.equals(labels.get(GROUP_LABEL), group.name())) {
      return false;
    }
    // add on an existing map member replaces it, so both labels are set whatever they held;
    // the labels map itself exists, since the pod was found through a label selector.
    JsonPatch patch = new JsonPatch()
        .add(JsonPatch.pointer("metadata", "labels", ROLE_LABEL), role)
        .add(JsonPatch.pointer("metadata", "labels", GROUP_LABEL), group.name());
    try {
      client.pods().inNamespace(group.namespace()).resource(JsonPatch.target(new Pod(), group.namespace(), name))
          .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
      log.info("Labelled pod {}/{} {}={} {}={}", group.namespace(), name, ROLE_LABEL, role, GROUP_LABEL, group.name());
      return true;
    } catch (KubernetesClientException e) {
      if (!Conflicts.isNotFound(e)) {
        throw e;
      }
      // A pod deleted since the list needs no label; its replacement is labelled on the next call.
      log.info("Pod {}/{} is gone; not labelled", group.namespace(), name);
      return false;
    }
  }

  /**
   * Creates the Service selecting the group's pods labelled {@code role} if it is missing; an
   * existing one, possibly tuned by an admin, is left alone. Whether it was created.
   */
  public boolean ensureService(GroupRef group, String name, String role) {
    var services = client.services().inNamespace(group.namespace());
    if (services.withName(name).get() != null) {
      return false;
    }
    Service service = new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(group.namespace())
        .addToLabels(GROUP_LABEL, group.name())
        .withOwnerReferences(owners.of(group).map(List::of).orElse(List.of()))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addToSelector(ROLE_LABEL, role)
        .addToSelector(GROUP_LABEL, group.name())
        .addNewPort().withName("mysql").withProtocol("TCP").withPort(MYSQL_PORT)
        .withTargetPort(new IntOrString(MYSQL_PORT)).endPort()
        .endSpec()
        .build();
    try {
      services.resource(service).create();
      log.info("Created Service {}/{} selecting {}={},{}={}", group.namespace(), name, ROLE_LABEL, role,
          GROUP_LABEL, group.name());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Another writer created it between the read and the create: the goal is met.
      log.debug("Service {}/{} was created concurrently", group.namespace(), name);
      return false;
    }
  }
}
