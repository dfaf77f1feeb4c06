package io.shipstream.failover.activities.kubernetes;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.Conflicts;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.kube.Owners;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session store's labels, the same mechanism as {@link SiteRoles} for MySQL: the store pods
 * of a site carry {@code shipstream.io/store-role} (master or replica) and
 * {@code shipstream.io/traffic} (active or standby), and Service {@code dragonfly-<group>-active}
 * follows traffic=active. The spec has no pod selector for the store, so its pods are found by
 * two labels the store's pod template carries: {@code shipstream.io/group=<group>} and
 * {@code shipstream.io/store-site=<site>}. The MySQL pods never match them, and the MySQL Service
 * never selects a store pod, since no store pod gets {@code shipstream.io/role}.
 */
final class StoreRoles {
  private static final Logger log = LoggerFactory.getLogger(StoreRoles.class);
  static final String SITE_LABEL = "shipstream.io/store-site";
  static final String STORE_ROLE_LABEL = "shipstream.io/store-role";
  static final String TRAFFIC_LABEL = "shipstream.io/traffic";
  static final String ACTIVE = "active";
  static final String STANDBY = "standby";
  static final int STORE_PORT = 6379;

  private final KubernetesClient client;
  private final GroupStore groups;

  StoreRoles(KubernetesClient client, GroupStore groups) {
    this.client = client;
    this.groups = groups;
  }

  static String serviceName(GroupRef group) {
    return "dragonfly-" + group.name() + "-active";
  }

  void setStoreRole(GroupRef group, SiteSpec site, String role, boolean active) {
    List<Pod> pods = client.pods().inNamespace(group.namespace())
        .withLabel(SiteRoles.GROUP_LABEL, group.name()).withLabel(SITE_LABEL, site.name()).list().getItems();
    if (pods.isEmpty()) {
      log.warn("no session-store pod of site {} in {} carries {}={} and {}={}", site.name(), group,
          SiteRoles.GROUP_LABEL, group.name(), SITE_LABEL, site.name());
    }
    String traffic = active ? ACTIVE : STANDBY;
    for (Pod pod : pods) {
      Map<String, String> labels = pod.getMetadata().getLabels();
      // Checked again here, as SiteRoles does: a server that ignored the selector must never get
      // every pod of the namespace relabelled.
      if (labels != null && site.name().equals(labels.get(SITE_LABEL))
          && group.name().equals(labels.get(SiteRoles.GROUP_LABEL))) {
        label(group, pod, role, traffic);
      }
    }
    ensureActiveService(group, site);
  }

  private void label(GroupRef group, Pod pod, String role, String traffic) {
    String name = pod.getMetadata().getName();
    Map<String, String> labels = pod.getMetadata().getLabels();
    boolean roleRight = role == null || Objects.equals(labels.get(STORE_ROLE_LABEL), role);
    if (roleRight && Objects.equals(labels.get(TRAFFIC_LABEL), traffic)) {
      return;
    }
    JsonPatch patch = new JsonPatch().add(JsonPatch.pointer("metadata", "labels", TRAFFIC_LABEL), traffic);
    if (role != null) {
      patch.add(JsonPatch.pointer("metadata", "labels", STORE_ROLE_LABEL), role);
    }
    try {
      client.pods().inNamespace(group.namespace()).resource(JsonPatch.target(new Pod(), group.namespace(), name))
          .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
      log.info("Labelled session-store pod {}/{} {}={} {}={}", group.namespace(), name, STORE_ROLE_LABEL,
          role == null ? labels.get(STORE_ROLE_LABEL) : role, TRAFFIC_LABEL, traffic);
    } catch (KubernetesClientException e) {
      if (!Conflicts.isNotFound(e)) {
        throw e;
      }
      log.info("Pod {}/{} is gone; not labelled", group.namespace(), name);
    }
  }

  /** Creates the Service if it is missing; an existing one, possibly tuned by an admin, is left alone. */
  private void ensureActiveService(GroupRef group, SiteSpec site) {
    String name = serviceName(group);
    var services = client.services().inNamespace(group.namespace());
    if (services.withName(name).get() != null) {
      return;
    }
    int port = site.dragonfly() == null || site.dragonfly().port() == null ? STORE_PORT : site.dragonfly().port();
    MysqlFailoverGroup cr = groups.find(group);
    Service service = new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(group.namespace())
        .addToLabels(SiteRoles.GROUP_LABEL, group.name())
        .withOwnerReferences(cr == null ? List.of() : List.of(Owners.reference(cr)))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .addToSelector(TRAFFIC_LABEL, ACTIVE)
        .addToSelector(SiteRoles.GROUP_LABEL, group.name())
        .addNewPort().withName("redis").withProtocol("TCP").withPort(STORE_PORT)
        .withTargetPort(new IntOrString(port)).endPort()
        .endSpec()
        .build();
    try {
      services.resource(service).create();
      log.info("Created Service {}/{} selecting {}={},{}={}", group.namespace(), name, TRAFFIC_LABEL, ACTIVE,
          SiteRoles.GROUP_LABEL, group.name());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      log.debug("Service {}/{} was created concurrently", group.namespace(), name);
    }
  }
}
