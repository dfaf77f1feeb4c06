package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TestAuthority;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The stack's group as the mock Kubernetes API server shows it (its status, routing labels and
 * Events), and what a user changes of it with kubectl (the planned-failover annotation, the spec).
 */
public final class GroupApi {
  private final MockCluster kube;
  private final GroupRef ref;

  private GroupApi(MockCluster kube, GroupRef ref) {
    this.kube = kube;
    this.ref = ref;
  }

  /**
   * Applies the group as a user does: the credentials Secret, a pod and a node per site, and the
   * {@code MysqlFailoverGroup} with no status, its sites' MySQL endpoints the given servers'.
   */
  static GroupApi create(MockCluster kube, FailoverStack.Options options, Map<String, DatabaseServer> servers,
      TestAuthority.DatabaseCertificates certificates) {
    GroupApi api = new GroupApi(kube, new GroupRef(MockCluster.NAMESPACE, FailoverStack.GROUP_NAME));
    createCredentialsSecret(kube.client(), MockCluster.NAMESPACE);
    MysqlFailoverGroupSpec.TlsSpec tls = null;
    if (certificates != null) {
      api.tlsCertificates = certificates;
      api.putTlsSecret(TestAuthority.read(certificates.caCert()));
      tls = new MysqlFailoverGroupSpec.TlsSpec(
          new MysqlFailoverGroupSpec.SessionTlsSpec("verify-identity",
              new MysqlFailoverGroupSpec.SecretRef(FailoverStack.TLS_SECRET)),
          new MysqlFailoverGroupSpec.ReplicationTlsSpec("verify-identity",
              TestAuthority.serverPath(options.flavor(), certificates.caCert()), null, null, null));
    }
    List<SiteSpec> sites = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, DatabaseServer> e : servers.entrySet()) {
      String name = e.getKey();
      DatabaseServer server = e.getValue();
      SiteSpec template = MockCluster.site(FailoverStack.GROUP_NAME, name, "10.0." + (++i) + ".10");
      String role = options.drOnlySites().contains(name) ? SiteSpec.ROLE_DR_ONLY : template.role();
      sites.add(new SiteSpec(name, role, template.zone(),
          new SiteSpec.Endpoint(server.host(), server.port()), template.podSelector(), template.taintNodeSelector(),
          template.lbIP(), null, null));
      kube.createNode(nodeOf(name), MockCluster.nodeLabels(FailoverStack.GROUP_NAME, name));
      kube.createPod("mysql-" + name + "-0", new HashMap<>(MockCluster.podLabels(name)), nodeOf(name));
    }
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(FailoverStack.GROUP_NAME);
    cr.getMetadata().setNamespace(MockCluster.NAMESPACE);
    cr.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef(FailoverStack.SECRET),
        options.pollInterval(), options.failureThreshold(), null, options.failoverCooldown(), null,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(options.maxLagWait(), null, null), null,
        new MysqlFailoverGroupSpec.DnsSpec(FailoverStack.GROUP_NAME + ".db.example.com", 30),
        FailoverStack.ownCredential(null), null)
        .withTls(tls));
    kube.client().resources(MysqlFailoverGroup.class).inNamespace(MockCluster.NAMESPACE).resource(cr).create();
    return api;
  }

  private TestAuthority.DatabaseCertificates tlsCertificates;

  /**
   * Writes the Secret of spec.tls.sessions with {@code caPem} as its CA and the run's client
   * certificate, as a user rotating the CA does ({@code kubectl apply}); the worker and the
   * watcher read it again within their credentials' cache time.
   */
  public void putTlsSecret(String caPem) {
    var secret = new SecretBuilder().withNewMetadata().withName(FailoverStack.TLS_SECRET)
        .withNamespace(ref.namespace()).endMetadata().addToStringData("ca.crt", caPem);
    if (tlsCertificates != null) {
      secret.addToStringData("tls.crt", TestAuthority.read(tlsCertificates.clientCert()))
          .addToStringData("tls.key", TestAuthority.read(tlsCertificates.clientKey()));
    }
    kube.client().secrets().inNamespace(ref.namespace()).resource(secret.build()).createOr(
        io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  /** The node the MySQL pod of {@code site} runs on ({@code spec.nodeName}). */
  public static String nodeOf(String site) {
    return "node-" + site + "-1";
  }

  /** {@code kubectl cordon} ({@code true}) or {@code kubectl uncordon} of the node of {@code site}'s pod. */
  public void cordon(String site, boolean cordoned) {
    kube.cordon(nodeOf(site), cordoned);
  }

  /** The Secret {@link FailoverStack#SECRET} with the test servers' admin and replication accounts. */
  static void createCredentialsSecret(KubernetesClient client, String namespace) {
    client.secrets().inNamespace(namespace).resource(new SecretBuilder()
        .withNewMetadata().withName(FailoverStack.SECRET).withNamespace(namespace).endMetadata()
        .addToStringData("username", MariaDbServer.ADMIN.user())
        .addToStringData("password", MariaDbServer.ADMIN.password())
        .addToStringData("replicationUsername", MariaDbServer.REPLICATION.user())
        .addToStringData("replicationPassword", MariaDbServer.REPLICATION.password())
        .build()).create();
    // The group's own sidecar credential, which its spec names: the sidecars, the watcher and the
    // worker all use it, as on a cluster where each group has its own.
    client.secrets().inNamespace(namespace).resource(new SecretBuilder()
        .withNewMetadata().withName(FailoverStack.SIDECAR_TOKEN_SECRET).withNamespace(namespace).endMetadata()
        .addToStringData(SidecarCredentials.DEFAULT_KEY, FailoverStack.SIDECAR_TOKEN)
        .build()).create();
  }

  /** The mock API server itself, for faults such as refused writes. */
  public MockCluster mock() {
    return kube;
  }

  public KubernetesClient client() {
    return kube.client();
  }

  public GroupRef ref() {
    return ref;
  }

  public MysqlFailoverGroup resource() {
    return kube.group(ref);
  }

  /** {@code kubectl annotate mysqlfailovergroup orders bloodraven.shipstream.io/planned-failover=<value> --overwrite}. */
  public void annotate(String value) {
    annotate(kube.client(), ref, value);
  }

  /**
   * Sets the planned-failover annotation of a group, as kubectl annotate --overwrite does: a merge
   * patch that names no resourceVersion. The watcher writes the group all the time, so an edit (a
   * read, then a patch bound to the version read) fails whenever one of its writes lands between.
   */
  static void annotate(KubernetesClient client, GroupRef ref, String value) {
    patchAnnotation(client, ref, MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value);
  }

  /** Sets any annotation of the group as {@code kubectl annotate --overwrite} does: a merge patch without a resourceVersion. */
  public void setAnnotation(String key, String value) {
    patchAnnotation(kube.client(), ref, key, value);
  }

  /** Removes the planned-failover annotation as kubectl annotate key- does: a merge patch without a resourceVersion. */
  public void removeAnnotation() {
    patchAnnotation(kube.client(), ref, MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, null);
  }

  /** Sets ({@code value} non-null) or removes one annotation by a merge patch that names no resourceVersion. */
  static void patchAnnotation(KubernetesClient client, GroupRef ref, String key, String value) {
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(key, value);
    String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", annotations)));
    client.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  public Optional<String> annotation() {
    var annotations = resource().getMetadata().getAnnotations();
    return Optional
        .ofNullable(annotations == null ? null : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION));
  }

  /**
   * Changes the spec as {@code kubectl edit} would, reading again when the watcher's monitor wrote
   * the status in between (the edit is sent with the resourceVersion it read, so it gets 409).
   */
  public void editSpec(UnaryOperator<MysqlFailoverGroupSpec> change) {
    editSpec(kube.client(), ref, change);
  }

  /** {@link #editSpec(UnaryOperator)} for a group this class does not hold. */
  static void editSpec(KubernetesClient client, GroupRef ref, UnaryOperator<MysqlFailoverGroupSpec> change) {
    for (int attempt = 1;; attempt++) {
      try {
        client.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name())
            .edit(cr -> {
              cr.setSpec(change.apply(cr.getSpec()));
              return cr;
            });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
        Playground.sleep(20L * attempt);
      }
    }
  }

  public Optional<PlannedFailoverStatus> plannedStatus() {
    return Optional.ofNullable(resource().getStatus()).map(MysqlFailoverGroupStatus::plannedFailover);
  }

  /** status.emergencyFailover.phase, or null while there is none. */
  public String emergencyPhase() {
    MysqlFailoverGroupStatus s = resource().getStatus();
    return s == null || s.emergencyFailover() == null ? null : s.emergencyFailover().phase();
  }

  /**
   * The site the {@code mysql-orders-primary} Service routes to right now: the one whose pod
   * carries role=primary, as kube-proxy would see it; empty while no pod does.
   */
  public Optional<String> routedSite() {
    return primaryPods().stream().map(p -> p.getMetadata().getLabels().get("site")).findFirst();
  }

  /** Whether the primary Service's selector picks {@code site}'s pod. */
  boolean routesTo(String site) {
    return primaryPods().stream().anyMatch(p -> p.getMetadata().getName().equals("mysql-" + site + "-0"));
  }

  private List<Pod> primaryPods() {
    return kube.client().pods().inNamespace(ref.namespace())
        .withLabel("shipstream.io/role", "primary").withLabel("shipstream.io/group", ref.name()).list().getItems();
  }

  /** The Events in the group's namespace, oldest first. */
  public List<Event> events() {
    return kube.client().v1().events().inNamespace(ref.namespace()).list().getItems();
  }

  public List<String> eventReasons() {
    return events().stream().map(Event::getReason).toList();
  }

  /** The messages of the Events with this reason, oldest first. */
  public List<String> eventMessages(String reason) {
    return events().stream().filter(e -> reason.equals(e.getReason())).map(Event::getMessage).toList();
  }

  /** The status condition of this type (Ready, Degraded, Paused, ...), while the status has it. */
  public Optional<Condition> condition(String type) {
    MysqlFailoverGroupStatus s = resource().getStatus();
    return s == null || s.conditions() == null ? Optional.empty()
        : s.conditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** The role label ({@code shipstream.io/role}) on {@code site}'s pod; null when it has none. */
  public String roleOf(String site) {
    Pod pod = kube.client().pods().inNamespace(ref.namespace()).withName("mysql-" + site + "-0").get();
    return pod == null || pod.getMetadata().getLabels() == null ? null
        : pod.getMetadata().getLabels().get("shipstream.io/role");
  }
}
