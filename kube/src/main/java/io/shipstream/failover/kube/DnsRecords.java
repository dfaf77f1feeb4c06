package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.GroupRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A record external-dns publishes for the group: one {@code DNSEndpoint} named
 * {@code <group>-primary} whose single endpoint points at the active site's load balancer.
 * external-dns is optional in a cluster, so its type is used generically rather than through a
 * model class, and a missing CRD surfaces as the failure the workflow turns into a warning.
 */
public final class DnsRecords {
  private static final Logger log = LoggerFactory.getLogger(DnsRecords.class);
  public static final String API_VERSION = "externaldns.k8s.io/v1alpha1";
  public static final String KIND = "DNSEndpoint";
  public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup("externaldns.k8s.io")
      .withVersion("v1alpha1")
      .withKind(KIND)
      .withPlural("dnsendpoints")
      .withNamespaced(true)
      .build();

  private final KubernetesClient client;
  private final Owners owners;

  public DnsRecords(KubernetesClient client, Owners owners) {
    this.client = client;
    this.owners = owners;
  }

  public static String endpointName(GroupRef group) {
    return group.name() + "-primary";
  }

  /** Points the record at {@code ip}; whether anything changed. */
  public boolean update(GroupRef group, String hostname, String ip, int ttl) {
    if (hostname == null || hostname.isBlank() || ip == null || ip.isBlank()) {
      log.info("No DNS hostname or target IP for {}; DNSEndpoint left as it is", group);
      return false;
    }
    Map<String, Object> endpoint = endpoint(hostname, ip, ttl);
    String name = endpointName(group);
    return Conflicts.retry("DNSEndpoint " + group.namespace() + "/" + name, () -> {
      var resource = client.genericKubernetesResources(CONTEXT).inNamespace(group.namespace()).withName(name);
      GenericKubernetesResource current = resource.get();
      if (current == null) {
        create(group, name, endpoint);
        return true;
      }
      Object spec = current.getAdditionalProperties().get("spec");
      if (spec instanceof Map<?, ?> specMap && sameEndpoints(specMap.get("endpoints"), endpoint)) {
        return false;
      }
      // The group owns the endpoints list, so it is replaced whole; other spec fields stay.
      JsonPatch patch = spec instanceof Map<?, ?>
          ? new JsonPatch().add("/spec/endpoints", List.of(endpoint))
          : new JsonPatch().test("/metadata/resourceVersion", current.getMetadata().getResourceVersion())
              .add("/spec", Map.of("endpoints", List.of(endpoint)));
      client.genericKubernetesResources(CONTEXT).inNamespace(group.namespace())
          .resource(JsonPatch.target(new GenericKubernetesResource(), group.namespace(), name))
          .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(patch.operations()));
      log.info("Pointed DNSEndpoint {}/{} {} at {} (ttl {})", group.namespace(), name, hostname, ip, ttl);
      return true;
    });
  }

  private void create(GroupRef group, String name, Map<String, Object> endpoint) {
    GenericKubernetesResource resource = new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind(KIND)
        .withNewMetadata()
        .withName(name)
        .withNamespace(group.namespace())
        .addToLabels(SiteRoles.GROUP_LABEL, group.name())
        .withOwnerReferences(owners.of(group).map(List::of).orElse(List.of()))
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of("endpoints", List.of(endpoint)))
        .build();
    // A concurrent create makes this a 409, which the caller's retry turns into an update.
    client.genericKubernetesResources(CONTEXT).inNamespace(group.namespace()).resource(resource).create();
    log.info("Created DNSEndpoint {}/{} {} -> {} (ttl {})", group.namespace(), name,
        endpoint.get("dnsName"), endpoint.get("targets"), endpoint.get("recordTTL"));
  }

  private static Map<String, Object> endpoint(String hostname, String ip, int ttl) {
    Map<String, Object> endpoint = new LinkedHashMap<>();
    endpoint.put("dnsName", hostname);
    endpoint.put("recordType", "A");
    endpoint.put("targets", List.of(ip));
    // A non-positive TTL means "provider default" to external-dns, which is what leaving it out says.
    if (ttl > 0) {
      endpoint.put("recordTTL", ttl);
    }
    return endpoint;
  }

  // Compared field by field as text, because numbers read back from the server may be Long or
  // Integer and a spurious difference would only cost a needless write.
  private static boolean sameEndpoints(Object endpoints, Map<String, Object> wanted) {
    if (!(endpoints instanceof List<?> list) || list.size() != 1 || !(list.get(0) instanceof Map<?, ?> actual)) {
      return false;
    }
    if (actual.size() != wanted.size()) {
      return false;
    }
    for (Map.Entry<String, Object> e : wanted.entrySet()) {
      if (!Objects.equals(String.valueOf(actual.get(e.getKey())), String.valueOf(e.getValue()))) {
        return false;
      }
    }
    return true;
  }
}
