package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.worker.WorkerConfig;
import io.shipstream.failover.workflows.TaskQueues;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart under helm/failover, through the real helm (helm-java bundles it as a native library,
 * so nothing is downloaded): it lints, renders with default and with non-default values, every
 * manifest parses, the CRD is the generated one, the pods are hardened, and the RBAC grants
 * exactly the permissions listed here, each with the code that needs it; {@link HelmRbacCoverageTest}
 * runs that code against a mock API server to show the list is neither short nor long.
 */
class HelmChartTest {
  static final Path CHART = Path.of("..", "helm", "failover").toAbsolutePath().normalize();
  static final String RELEASE = "failover";
  static final String NAMESPACE = "failover-system";
  static final String CRD_FILE = "mysqlfailovergroups.shipstream.io-v1.yml";
  // helm template renders for Kubernetes v1.20 unless told otherwise, below the chart's kubeVersion.
  static final String KUBE_VERSION = "1.30.0";

  /**
   * Permissions, written "group/resource verb" (core group: "core"), plus " name=x" for a rule
   * limited to one object. Each line says which code makes the call. fabric8 7.5 GETs an object
   * before it sends a JSON patch to it by name, so the worker and the monitor send their patches
   * against an object carrying only the name (JsonPatch.target), which it does not read first;
   * editStatus still GETs the resource itself before patching /status.
   */
  static final List<String> WORKER_IN_GROUP_NAMESPACES = List.of(
      "shipstream.io/mysqlfailovergroups get", // GroupStore.find/load, the guarded status writes
      "shipstream.io/mysqlfailovergroups patch", // GroupStore.clearAnnotation: test-and-remove
      "shipstream.io/mysqlfailovergroups/status patch", // GroupStore.patchStatusFields
      "core/events get", // GroupEvents.emit: the repeat whose create was refused
      "core/events create", // GroupEvents.emit: created outright
      "core/events patch", // GroupEvents.emit: count and lastTimestamp of a repeat
      "core/pods list", // SiteRoles.setSiteRole: the site's podSelector
      "core/pods patch", // SiteRoles.label: role and group labels
      "core/services get", // SiteRoles.ensurePrimaryService: does it exist?
      "core/services create", // SiteRoles.ensurePrimaryService: create, never change
      // SecretCredentialsProvider.read: spec.credentialsSecretRef; SidecarCredentials: spec.sidecar.tokenSecretRef
      "core/secrets get",
      "externaldns.k8s.io/dnsendpoints get", // DnsRecords.update
      "externaldns.k8s.io/dnsendpoints create", // DnsRecords.create
      "externaldns.k8s.io/dnsendpoints patch"); // DnsRecords.update: the endpoints list
  static final List<String> WORKER_CLUSTER_WIDE = List.of(
      "core/nodes list", // NodeTaints.apply: the site's taintNodeSelector
      "core/nodes get", // NodeTaints.reconcile
      "core/nodes patch"); // NodeTaints.reconcile: the guarded taint list
  static final List<String> WATCHER_IN_GROUP_NAMESPACES = List.of(
      "shipstream.io/mysqlfailovergroups list", // WatcherApp: the informer
      "shipstream.io/mysqlfailovergroups watch", // WatcherApp: the informer
      "shipstream.io/mysqlfailovergroups get", // RequestRejections.reject: editStatus reads it; GroupFinalizer
      // RequestRejections.reject; KubeEffects.removeAnnotation: promote-anyway; GroupFinalizer: metadata.finalizers
      "shipstream.io/mysqlfailovergroups patch",
      "shipstream.io/mysqlfailovergroups/status patch", // RequestRejections.reject; KubeEffects.writeSites
      "core/events create", // RequestRejections.reject: PlannedFailoverRejected; KubeEffects.event
      "core/configmaps get", // Tombstones.read: /active-site for a group not in the cache
      "core/configmaps create", // Tombstones.write: a deleted group's tombstone
      "core/configmaps patch", // Tombstones.write: over an earlier tombstone
      "core/configmaps delete", // Tombstones.forget: a group of that name exists again
      "core/services list", // RoutingOrphans.release: the group's Services, by label
      "core/services patch", // RoutingOrphans.release: the group's ownerReference removed
      "externaldns.k8s.io/dnsendpoints list", // RoutingOrphans.release: the group's DNSEndpoint, by label
      // SidecarCredentials: /active-site's check; SecretCredentialsProvider.read: the monitor's MySQL login
      "core/secrets get",
      "core/pods list", // RoutingRepair: SiteRoles.setSiteRole, the site's podSelector
      "core/pods patch", // RoutingRepair: SiteRoles.label
      "core/services get", // RoutingRepair: SiteRoles.ensureService, primary and replicas; RoutingOrphans
      "core/services create", // RoutingRepair: SiteRoles.ensureService
      "externaldns.k8s.io/dnsendpoints get", // RoutingRepair: DnsRecords.update; RoutingOrphans
      "externaldns.k8s.io/dnsendpoints create", // RoutingRepair: DnsRecords.create
      "externaldns.k8s.io/dnsendpoints patch"); // RoutingRepair: DnsRecords.update; RoutingOrphans.release
  /** The topology monitor's alone, in the groups' namespaces: off without it. */
  static final List<String> WATCHER_MONITOR_ONLY = List.of("core/pods list", "core/pods patch",
      "core/services create", "externaldns.k8s.io/dnsendpoints create");
  /** With or without the monitor: the finalizer removes a deleted group's taint. */
  static final List<String> WATCHER_CLUSTER_WIDE = List.of(
      "core/nodes list", // RoutingRepair: NodeTaints.apply; GroupFinalizer: NodeTaints.removeEverywhere
      "core/nodes get", // RoutingRepair, GroupFinalizer: NodeTaints.reconcile
      "core/nodes patch"); // RoutingRepair, GroupFinalizer: NodeTaints.reconcile
  static final List<String> WORKER_IN_RELEASE_NAMESPACE = List.of(
      "core/pods list"); // PodWatcherReplicas: the watcher's pods, each read at its own address
  static final List<String> WATCHER_IN_RELEASE_NAMESPACE = List.of(
      // Leader election, fabric8 LeaseLock: created once, then read and renewed by merge patch.
      "coordination.k8s.io/leases create",
      "coordination.k8s.io/leases get name=" + RELEASE + "-watcher",
      "coordination.k8s.io/leases patch name=" + RELEASE + "-watcher");

  static final String NON_DEFAULT_VALUES = """
      watchNamespaces: [shop, billing]
      image:
        digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
      temporal:
        address: orders.a1b2c.tmprl.cloud:7233
        namespace: orders.a1b2c
        tls:
          enabled: true
          secretName: temporal-client-tls
          caKey: ca.crt
      sidecarToken:
        value: not-a-real-token
      worker:
        shutdownTimeout: 1m30s
      serviceMonitor:
        enabled: true
        labels: {release: prometheus}
      podDisruptionBudget:
        enabled: true
      networkPolicy:
        enabled: true
        activeSiteFrom:
          - namespaceSelector: {matchLabels: {shipstream.io/mysql: "true"}}
        metricsFrom:
          - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
      """;

  static List<HasMetadata> defaults;
  static List<HasMetadata> nonDefaults;

  @BeforeAll
  static void renderBoth(@TempDir Path dir) throws IOException {
    defaults = render(dir, false);
    nonDefaults = render(dir, true);
  }

  /** The chart rendered by helm template, with its default values or with {@link #NON_DEFAULT_VALUES}. */
  static List<HasMetadata> render(Path dir, boolean nonDefault) throws IOException {
    TemplateCommand template = template();
    if (nonDefault) {
      template = template.withValuesFile(Files.writeString(dir.resolve("values.yaml"), NON_DEFAULT_VALUES));
    }
    return parse(template.call());
  }

  static TemplateCommand template() {
    return new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE).withKubeVersion(KUBE_VERSION);
  }

  /** Every document of a multi-document YAML, parsed by fabric8; a kind it has no class for is generic. */
  static List<HasMetadata> parse(String yaml) {
    return Stream.of(yaml.split("(?m)^---\\s*$"))
        .filter(doc -> doc.lines().anyMatch(l -> !l.isBlank() && !l.startsWith("#")))
        .map(doc -> Serialization.unmarshal(doc, HasMetadata.class))
        .toList();
  }

  @Test
  void lintsCleanInStrictMode() {
    LintResult lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.isFailed()).as("%s", lint.getMessages()).isFalse();
    assertThat(lint.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
  }

  /** What helm install prints: how to request, follow and cancel a failover, and where the sidecars connect. */
  @Test
  void notesSayHowToRequestFollowAndCancelAFailover() {
    String output = new Helm(CHART).install().withName(RELEASE).withNamespace(NAMESPACE)
        .withKubeVersion(KUBE_VERSION).clientOnly().dryRun().call().getOutput();
    assertThat(output.substring(output.indexOf("NOTES:"))).contains(
        "annotate mysqlfailovergroup <name> bloodraven.shipstream.io/planned-failover=<site>",
        "-o jsonpath='{.status.plannedFailover}",
        "Temporal UI of namespace \"default\", workflow id\n  mysqlfailovergroup/<ns>/<name>",
        "--workflow-id mysqlfailovergroup/<ns>/<name> --name cancel",
        "create secret generic failover-sidecar-token",
        "WATCHER_URL=http://failover-watcher.failover-system.svc:8080");
  }

  @Test
  void defaultValuesRenderTheTwoProcessesTheirBudgetsAndNothingOptional() {
    assertThat(kinds(defaults)).containsExactlyInAnyOrderEntriesOf(Map.of(
        "ServiceAccount", 2L, "ClusterRole", 2L, "ClusterRoleBinding", 2L, "Role", 2L, "RoleBinding", 2L,
        "Service", 2L, "Deployment", 2L, "PodDisruptionBudget", 2L));
    assertThat(deployment(defaults, "worker").getSpec().getReplicas()).isEqualTo(2);
    assertThat(deployment(defaults, "watcher").getSpec().getReplicas()).isEqualTo(2);
  }

  /**
   * An upgrade rolls each Deployment one new pod at a time and stops an old one only once the new
   * one is ready: a worker polls the task queue, and a watcher answers the sidecars, throughout.
   * A drain, too, leaves one of each (the PodDisruptionBudgets, on by default).
   */
  @Test
  void anUpgradeNeverLeavesAProcessWithoutAReadyPod() {
    for (String component : List.of("worker", "watcher")) {
      var strategy = deployment(defaults, component).getSpec().getStrategy();
      assertThat(strategy.getType()).as(component).isEqualTo("RollingUpdate");
      assertThat(strategy.getRollingUpdate().getMaxUnavailable().getIntVal()).as(component).isZero();
      assertThat(strategy.getRollingUpdate().getMaxSurge().getIntVal()).as(component).isEqualTo(1);
      PodDisruptionBudget budget = of(defaults, PodDisruptionBudget.class).stream()
          .filter(pdb -> pdb.getMetadata().getName().equals(RELEASE + "-" + component)).findFirst().orElseThrow();
      assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).as(component).isEqualTo(1);
      assertThat(budget.getSpec().getSelector().getMatchLabels()).as(component)
          .isEqualTo(deployment(defaults, component).getSpec().getSelector().getMatchLabels());
    }
  }

  @Test
  void nonDefaultValuesAddMonitoringBudgetsPoliciesTheTokenAndPerNamespaceRoles() {
    assertThat(kinds(nonDefaults)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("ServiceAccount", 2L), Map.entry("ClusterRole", 2L), Map.entry("ClusterRoleBinding", 2L),
        Map.entry("Role", 6L), Map.entry("RoleBinding", 6L), Map.entry("Service", 2L), Map.entry("Deployment", 2L),
        Map.entry("Secret", 1L), Map.entry("ServiceMonitor", 1L), Map.entry("PodDisruptionBudget", 2L),
        Map.entry("NetworkPolicy", 2L)));
    var monitor = (GenericKubernetesResource) only(nonDefaults, "ServiceMonitor");
    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "prometheus");
    assertThat(monitor.<String>get("spec", "endpoints", 0, "path")).isEqualTo("/metrics");
    assertThat(of(nonDefaults, PodDisruptionBudget.class))
        .allSatisfy(pdb -> assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1));
    NetworkPolicy watcherPolicy = of(nonDefaults, NetworkPolicy.class).stream()
        .filter(p -> p.getMetadata().getName().endsWith("-watcher")).findFirst().orElseThrow();
    // The two lists given, and the worker's pods, which read each watcher's /answers.
    assertThat(watcherPolicy.getSpec().getIngress().get(0).getFrom()).hasSize(3);
    assertThat(watcherPolicy.getSpec().getIngress().get(0).getFrom().get(2).getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "worker");

    Map<String, String> worker = env(deployment(nonDefaults, "worker"));
    assertThat(worker).containsEntry("TEMPORAL_TLS", "true")
        .containsEntry("TEMPORAL_TLS_CERT", "/etc/failover/temporal-tls/tls.crt")
        .containsEntry("TEMPORAL_TLS_KEY", "/etc/failover/temporal-tls/tls.key")
        .containsEntry("TEMPORAL_TLS_CA", "/etc/failover/temporal-tls/ca.crt")
        .containsEntry("TEMPORAL_NAMESPACE", "orders.a1b2c").doesNotContainKey("TEMPORAL_API_KEY");
    Volume tls = deployment(nonDefaults, "worker").getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals("temporal-tls")).findFirst().orElseThrow();
    assertThat(tls.getSecret().getSecretName()).isEqualTo("temporal-client-tls");
    assertThat(tls.getSecret().getItems()).extracting(i -> i.getKey() + "->" + i.getPath())
        .containsExactly("tls.crt->tls.crt", "tls.key->tls.key", "ca.crt->ca.crt");
    assertThat(deployment(nonDefaults, "worker").getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .as("shutdownTimeout 1m30s plus 15s for the JVM").isEqualTo(105L);
    assertThat(env(deployment(nonDefaults, "watcher"))).containsEntry("WATCH_NAMESPACES", "shop,billing")
        .doesNotContainKey("SEARCH_ATTRIBUTES");
    assertThat(container(deployment(nonDefaults, "watcher")).getImage())
        .isEqualTo("ghcr.io/shipstream/mysql-failover@sha256:" + "0123456789abcdef".repeat(4));
  }

  @Test
  void anApiKeyTogetherWithAClientCertificateIsRefusedAtRenderTime() {
    assertThatThrownBy(() -> template().set("temporal.apiKey.secretName", "temporal-api-key")
        .set("temporal.tls.secretName", "temporal-client-tls").call())
        .hasMessageContaining("authenticate with one of them");
  }

  /** The two other ways to authenticate to Temporal render to settings the worker accepts. */
  @Test
  void anApiKeyOrAPrivateCaGiveSettingsTheWorkerAccepts(@TempDir Path pod) throws IOException {
    Deployment cloud =
        deployment(parse(template().set("temporal.apiKey.secretName", "temporal-cloud").call()), "worker");
    EnvVar key = container(cloud).getEnv().stream().filter(v -> v.getName().equals("TEMPORAL_API_KEY"))
        .findFirst().orElseThrow();
    assertThat(key.getValueFrom().getSecretKeyRef().getName()).isEqualTo("temporal-cloud");
    assertThat(key.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("api-key");
    WorkerConfig withKey = WorkerConfig.from(podEnv(cloud, pod), new String[0]);
    assertThat(withKey.tls()).isTrue();
    assertThat(withKey.apiKey()).isEqualTo("<secret>");

    Deployment privateCa = deployment(parse(template().set("temporal.tls.secretName", "temporal-ca")
        .set("temporal.tls.certKey", "").set("temporal.tls.caKey", "ca.crt").call()), "worker");
    WorkerConfig withCa = WorkerConfig.from(podEnv(privateCa, pod), new String[0]);
    assertThat(withCa.tls()).isTrue();
    assertThat(withCa.mutualTls()).isFalse();
    assertThat(withCa.tlsCa()).isNotNull();
  }

  @Test
  void theChartCarriesTheGeneratedCrdUnchanged() throws IOException {
    CustomResourceDefinition inChart;
    try (InputStream in = Files.newInputStream(CHART.resolve("crds").resolve(CRD_FILE))) {
      inChart = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    assertThat(inChart).as("helm/failover/crds/%s differs from the generated CRD: run helm/sync-crd", CRD_FILE)
        .isEqualTo(generatedCrd());
    try (Stream<Path> files = Files.list(CHART.resolve("crds"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(CRD_FILE);
    }
  }

  /** The freshest generated CRD: the model module's build output, else the model jar on the classpath. */
  static CustomResourceDefinition generatedCrd() throws IOException {
    Path built = Path.of("..", "model", "target", "classes", "META-INF", "fabric8", CRD_FILE);
    try (InputStream in = Files.exists(built) ? Files.newInputStream(built)
        : HelmChartTest.class.getResourceAsStream("/META-INF/fabric8/" + CRD_FILE)) {
      assertThat(in).as("the generated CRD: build the model module first").isNotNull();
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }

  @Test
  void deploymentsAreHardenedAndProbed() {
    for (List<HasMetadata> rendering : List.of(defaults, nonDefaults)) {
      for (String component : List.of("worker", "watcher")) {
        Deployment deployment = deployment(rendering, component);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        assertThat(pod.getServiceAccountName()).isEqualTo(RELEASE + "-" + component);
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isPositive();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        Container c = container(deployment);
        assertThat(c.getArgs()).containsExactly(component);
        assertThat(c.getImage()).doesNotEndWith(":latest").doesNotEndWith(":");
        var sc = c.getSecurityContext();
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
        assertThat(c.getPorts()).extracting(p -> p.getName()).containsExactly("http");
        assertThat(c.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/tmp"));
        assertThat(c.getResources().getLimits()).containsKey("memory");
      }
    }
    assertThat(container(deployment(defaults, "worker")).getImage())
        .isEqualTo("ghcr.io/shipstream/mysql-failover:0.1.0");
  }

  /** The processes accept the settings the chart gives them, and agree on the task queue. */
  @Test
  void theProcessesAcceptTheRenderedEnvironment(@TempDir Path pod) throws IOException {
    Deployment worker = deployment(defaults, "worker");
    WorkerConfig workerConfig = WorkerConfig.from(podEnv(worker, pod), new String[0]);
    assertThat(workerConfig.taskQueue()).isEqualTo(TaskQueues.FAILOVER);
    assertThat(workerConfig.httpPort()).isEqualTo(container(worker).getPorts().get(0).getContainerPort());
    assertThat(workerConfig.logFormat()).isEqualTo("json");
    Deployment watcher = deployment(defaults, "watcher");
    WatcherConfig watcherConfig = WatcherConfig.from(podEnv(watcher, pod), new String[0]);
    assertThat(watcherConfig.taskQueue()).isEqualTo(workerConfig.taskQueue());
    assertThat(watcherConfig.temporal().namespace()).isEqualTo(workerConfig.namespace());
    assertThat(watcherConfig.httpPort()).isEqualTo(container(watcher).getPorts().get(0).getContainerPort());
    assertThat(watcherConfig.httpHost()).as("the kubelet and the sidecars come from outside the pod")
        .isEqualTo("0.0.0.0");
    assertThat(watcherConfig.watchNamespaces()).isEmpty();
    assertThat(watcherConfig.activeSiteToken()).as("the watcher refuses to start without it").isNotNull();
    assertThat(watcherConfig.leaderElection().leaseName()).isEqualTo(RELEASE + "-watcher");
    assertThat(watcherConfig.leaderElection().leaseNamespace()).isEqualTo(NAMESPACE);
    assertThat(watcherConfig.leaderElection().identity()).isEqualTo(RELEASE + "-watcher-0");
    assertThat(watcherConfig.topologyMonitor()).as("emergency failovers, on by default").isTrue();

    WorkerConfig mtls = WorkerConfig.from(podEnv(deployment(nonDefaults, "worker"), pod), new String[0]);
    assertThat(mtls.tls()).isTrue();
    assertThat(mtls.mutualTls()).isTrue();
    assertThat(mtls.tlsCa()).isNotNull();
    assertThat(WatcherConfig.from(podEnv(deployment(nonDefaults, "watcher"), pod), new String[0]).watchNamespaces())
        .containsExactly("shop", "billing");
  }

  /**
   * The worker presents the sidecars' token to their POST /tick and GET /status, so it mounts the
   * very Secret the watcher checks /active-site against, and reads it as the watcher does.
   */
  @Test
  void theWorkerGetsTheSidecarTokenFromTheWatchersSecret(@TempDir Path pod) throws IOException {
    for (List<HasMetadata> rendering : List.of(defaults, nonDefaults)) {
      Deployment worker = deployment(rendering, "worker");
      Deployment watcher = deployment(rendering, "watcher");
      assertThat(env(worker)).containsEntry("AUTH_TOKEN_FILE", "/etc/failover/sidecar-token/token")
          .doesNotContainKey("AUTH_TOKEN");
      assertThat(tokenVolume(worker)).isEqualTo(tokenVolume(watcher));
      assertThat(tokenVolume(worker).getSecret().getSecretName()).isEqualTo(RELEASE + "-sidecar-token");
      assertThat(container(worker).getVolumeMounts()).anySatisfy(m -> {
        assertThat(m.getName()).isEqualTo("sidecar-token");
        assertThat(m.getMountPath()).isEqualTo("/etc/failover/sidecar-token");
        assertThat(m.getReadOnly()).isTrue();
      });
      WorkerConfig config = WorkerConfig.from(podEnv(worker, pod), new String[0]);
      assertThat(config.sidecarToken()).as("the worker refuses to start without it").isNotNull();
      assertThat(config.sidecarToken().authorization()).isEqualTo("Bearer mounted-AUTH_TOKEN_FILE");
    }
    List<HasMetadata> ownSecret = parse(template().set("sidecarToken.secretName", "my-token")
        .set("sidecarToken.key", "value").call());
    assertThat(tokenVolume(deployment(ownSecret, "worker")).getSecret().getSecretName()).isEqualTo("my-token");
    assertThat(tokenVolume(deployment(ownSecret, "worker")).getSecret().getItems())
        .extracting(i -> i.getKey() + "->" + i.getPath()).containsExactly("value->token");
  }

  /**
   * Control-plane TLS, off by default: on, the watcher serves /active-site on an HTTPS port of its
   * own (the probes, the Service's http port and the ServiceMonitor keep plain HTTP), both processes
   * verify the sidecars with the CA of the Secret, and cert-manager issues it when asked, with the
   * CA chain users expect, or from an issuer they name.
   */
  /**
   * The worker lists exactly the watcher Deployment's pods, in the release namespace, over https
   * with the Service's name only when the control plane's TLS is on.
   */
  @Test
  void theWorkerIsToldWhereEveryWatcherPodIs(@TempDir Path pod) throws IOException {
    for (List<HasMetadata> rendering : List.of(defaults, nonDefaults)) {
      WorkerConfig config = WorkerConfig.from(podEnv(deployment(rendering, "worker"), pod), new String[0]);
      assertThat(io.shipstream.failover.activities.sidecar.PodWatcherReplicas.labels(config.watcherPods().selector()))
          .isEqualTo(deployment(rendering, "watcher").getSpec().getSelector().getMatchLabels());
      assertThat(config.watcherPods().namespace()).isEqualTo(NAMESPACE);
      assertThat(config.watcherPods().tlsName()).as("plain http without the control plane's TLS").isNull();
    }
    List<HasMetadata> tls = parse(template().set("controlPlaneTls.enabled", "true").call());
    assertThat(env(deployment(tls, "worker"))).containsEntry("WATCHER_TLS_NAME",
        RELEASE + "-watcher." + NAMESPACE + ".svc");
  }

  @Test
  void controlPlaneTlsAddsAnHttpsPortAndCertManagerIssuesItsCertificate() throws IOException {
    List<HasMetadata> own = parse(template().set("controlPlaneTls.enabled", "true")
        .set("controlPlaneTls.secretName", "my-watcher-tls").set("serviceMonitor.enabled", "true").call());
    assertThat(kinds(own)).doesNotContainKeys("Certificate", "Issuer");
    Deployment watcher = deployment(own, "watcher");
    assertThat(env(watcher)).containsEntry("TLS_CERT_FILE", "/etc/failover/control-plane-tls/tls.crt")
        .containsEntry("TLS_KEY_FILE", "/etc/failover/control-plane-tls/tls.key")
        .containsEntry("TLS_CA_FILE", "/etc/failover/control-plane-tls/ca.crt").containsEntry("HTTPS_PORT", "8443");
    assertThat(container(watcher).getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
        .containsExactly("http:8080", "https:8443");
    assertThat(container(watcher).getLivenessProbe().getHttpGet().getPort().getStrVal()).as("probes stay on http")
        .isEqualTo("http");
    Deployment worker = deployment(own, "worker");
    assertThat(env(worker)).containsEntry("TLS_CA_FILE", "/etc/failover/control-plane-tls/ca.crt")
        .doesNotContainKeys("TLS_CERT_FILE", "TLS_KEY_FILE");
    Volume workerTls = worker.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals("control-plane-tls")).findFirst().orElseThrow();
    assertThat(workerTls.getSecret().getSecretName()).isEqualTo("my-watcher-tls");
    assertThat(workerTls.getSecret().getItems()).as("the worker mounts the CA, not the watcher's key")
        .extracting(i -> i.getKey()).containsExactly("ca.crt");
    Service service = of(own, Service.class).stream().filter(x -> x.getMetadata().getName().endsWith("-watcher"))
        .findFirst().orElseThrow();
    assertThat(service.getSpec().getPorts()).extracting(p -> p.getName()).containsExactly("http", "https");
    var monitor = (GenericKubernetesResource) only(own, "ServiceMonitor");
    assertThat(monitor.<String>get("spec", "endpoints", 0, "port")).as("Prometheus scrapes plain http")
        .isEqualTo("http");

    List<HasMetadata> issued = parse(template().set("controlPlaneTls.enabled", "true")
        .set("controlPlaneTls.certManager.enabled", "true").call());
    assertThat(kinds(issued)).containsEntry("Certificate", 2L).containsEntry("Issuer", 2L);
    var certificate = (GenericKubernetesResource) issued.stream().filter(o -> o.getKind().equals("Certificate")
        && o.getMetadata().getName().equals(RELEASE + "-watcher-tls")).findFirst().orElseThrow();
    assertThat(certificate.<String>get("spec", "secretName")).isEqualTo(RELEASE + "-watcher-tls");
    assertThat(certificate.<String>get("spec", "privateKey", "encoding")).as("the form the processes read")
        .isEqualTo("PKCS8");
    assertThat(certificate.<List<String>>get("spec", "dnsNames")).contains(RELEASE + "-watcher",
        RELEASE + "-watcher." + NAMESPACE + ".svc");
    // The worker reads each watcher pod at its address, verifying the name the certificate carries.
    assertThat(certificate.<List<String>>get("spec", "dnsNames"))
        .contains(env(deployment(issued, "worker")).get("WATCHER_TLS_NAME"));
    assertThat(certificate.<String>get("spec", "issuerRef", "name")).isEqualTo(RELEASE + "-control-plane-ca");

    List<HasMetadata> external = parse(template().set("controlPlaneTls.enabled", "true")
        .set("controlPlaneTls.certManager.enabled", "true").set("controlPlaneTls.certManager.issuerRef.name", "corp-ca")
        .set("controlPlaneTls.certManager.issuerRef.kind", "ClusterIssuer").call());
    assertThat(kinds(external)).containsEntry("Certificate", 1L).doesNotContainKey("Issuer");
    assertThat(((GenericKubernetesResource) only(external, "Certificate")).<String>get("spec", "issuerRef", "kind"))
        .isEqualTo("ClusterIssuer");
  }

  private static Volume tokenVolume(Deployment deployment) {
    return deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals("sidecar-token")).findFirst().orElseThrow();
  }

  @Test
  void rbacGrantsExactlyTheCallsOfTheCodeInEveryNamespace() {
    assertThat(permissions(defaults, "worker")).isEqualTo(Map.of(
        "*", set(WORKER_IN_GROUP_NAMESPACES, WORKER_CLUSTER_WIDE), NAMESPACE, set(WORKER_IN_RELEASE_NAMESPACE)));
    assertThat(permissions(defaults, "watcher")).isEqualTo(Map.of(
        "*", set(WATCHER_IN_GROUP_NAMESPACES, WATCHER_CLUSTER_WIDE), NAMESPACE, set(WATCHER_IN_RELEASE_NAMESPACE)));
  }

  @Test
  void rbacWithWatchNamespacesIsARolePerNamespacePlusTheNodes() {
    assertThat(permissions(nonDefaults, "worker")).isEqualTo(Map.of(
        "*", set(WORKER_CLUSTER_WIDE), "shop", set(WORKER_IN_GROUP_NAMESPACES),
        "billing", set(WORKER_IN_GROUP_NAMESPACES), NAMESPACE, set(WORKER_IN_RELEASE_NAMESPACE)));
    assertThat(permissions(nonDefaults, "watcher")).isEqualTo(Map.of(
        "*", set(WATCHER_CLUSTER_WIDE), "shop", set(WATCHER_IN_GROUP_NAMESPACES),
        "billing", set(WATCHER_IN_GROUP_NAMESPACES), NAMESPACE, set(WATCHER_IN_RELEASE_NAMESPACE)));
  }

  /**
   * Without the topology monitor the watcher neither runs it nor may read Secrets; it keeps the
   * nodes, which its finalizer untaints.
   */
  @Test
  void turningTheTopologyMonitorOffDropsItsGrantsButKeepsTheSecretsThatCredentialsAreIn(@TempDir Path pod)
      throws IOException {
    List<HasMetadata> off = parse(template().set("watcher.topologyMonitor.enabled", "false").call());
    assertThat(WatcherConfig.from(podEnv(deployment(off, "watcher"), pod), new String[0]).topologyMonitor()).isFalse();
    Set<String> withoutSecrets = set(WATCHER_IN_GROUP_NAMESPACES);
    withoutSecrets.removeAll(WATCHER_MONITOR_ONLY);
    withoutSecrets.addAll(WATCHER_CLUSTER_WIDE);
    assertThat(permissions(off, "watcher")).isEqualTo(Map.of(
        "*", withoutSecrets, NAMESPACE, set(WATCHER_IN_RELEASE_NAMESPACE)));
    assertThat(permissions(off, "worker")).isEqualTo(permissions(defaults, "worker"));
  }

  /**
   * What the component's ServiceAccount may do, by namespace ("*" for cluster-wide), through every
   * binding in the rendering: a ClusterRoleBinding grants its ClusterRole everywhere, a RoleBinding
   * grants its Role or ClusterRole in its own namespace.
   */
  static Map<String, Set<String>> permissions(List<HasMetadata> rendering, String component) {
    String account = RELEASE + "-" + component;
    Map<String, Set<String>> result = new TreeMap<>();
    Function<RoleRef, List<PolicyRule>> clusterRole = ref -> of(rendering, ClusterRole.class).stream()
        .filter(r -> r.getMetadata().getName().equals(ref.getName())).findFirst().orElseThrow().getRules();
    for (ClusterRoleBinding b : of(rendering, ClusterRoleBinding.class)) {
      if (binds(b.getSubjects(), account)) {
        result.computeIfAbsent("*", k -> new TreeSet<>()).addAll(expand(clusterRole.apply(b.getRoleRef())));
      }
    }
    for (RoleBinding b : of(rendering, RoleBinding.class)) {
      if (binds(b.getSubjects(), account)) {
        String ns = b.getMetadata().getNamespace();
        List<PolicyRule> rules = b.getRoleRef().getKind().equals("ClusterRole") ? clusterRole.apply(b.getRoleRef())
            : of(rendering, Role.class).stream().filter(r -> r.getMetadata().getNamespace().equals(ns)
                && r.getMetadata().getName().equals(b.getRoleRef().getName())).findFirst().orElseThrow().getRules();
        result.computeIfAbsent(ns, k -> new TreeSet<>()).addAll(expand(rules));
      }
    }
    return result;
  }

  private static boolean binds(List<Subject> subjects, String account) {
    return subjects.stream().anyMatch(s -> s.getKind().equals("ServiceAccount") && s.getName().equals(account)
        && NAMESPACE.equals(s.getNamespace()));
  }

  private static Set<String> expand(List<PolicyRule> rules) {
    Set<String> out = new TreeSet<>();
    for (PolicyRule r : rules) {
      for (String group : r.getApiGroups()) {
        for (String resource : r.getResources()) {
          for (String verb : r.getVerbs()) {
            String base = (group.isEmpty() ? "core" : group) + "/" + resource + " " + verb;
            if (r.getResourceNames() == null || r.getResourceNames().isEmpty()) {
              out.add(base);
            } else {
              r.getResourceNames().forEach(name -> out.add(base + " name=" + name));
            }
          }
        }
      }
    }
    return out;
  }

  @SafeVarargs
  static Set<String> set(List<String>... lists) {
    Set<String> out = new TreeSet<>();
    for (List<String> l : lists) {
      out.addAll(l);
    }
    return out;
  }

  static Map<String, Long> kinds(List<HasMetadata> rendering) {
    return rendering.stream().collect(Collectors.groupingBy(HasMetadata::getKind, Collectors.counting()));
  }

  static <T extends HasMetadata> List<T> of(List<HasMetadata> rendering, Class<T> type) {
    return rendering.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static HasMetadata only(List<HasMetadata> rendering, String kind) {
    List<HasMetadata> found = rendering.stream().filter(o -> o.getKind().equals(kind)).toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  static Deployment deployment(List<HasMetadata> rendering, String component) {
    return of(rendering, Deployment.class).stream()
        .filter(d -> d.getMetadata().getName().equals(RELEASE + "-" + component)).findFirst().orElseThrow();
  }

  static Container container(Deployment deployment) {
    List<Container> containers = deployment.getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  /**
   * The container's environment as the process would see it: downward-API fields resolved as the
   * kubelet would for replica 0 in the release namespace; values from Secrets stand as "<secret>".
   */
  static Map<String, String> env(Deployment deployment) {
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar v : container(deployment).getEnv()) {
      String value = v.getValue();
      if (v.getValueFrom() != null && v.getValueFrom().getFieldRef() != null) {
        String field = v.getValueFrom().getFieldRef().getFieldPath();
        value = switch (field) {
          case "metadata.namespace" -> NAMESPACE;
          case "metadata.name" -> deployment.getMetadata().getName() + "-0";
          default -> throw new AssertionError("unexpected fieldRef " + field);
        };
      } else if (v.getValueFrom() != null) {
        value = "<secret>";
      }
      env.put(v.getName(), value == null ? "" : value);
    }
    return env;
  }

  /**
   * {@link #env}, with every path under one of the container's mounts replaced by a file of
   * {@code root} holding some text: the file a mounted Secret would provide, so that settings
   * that read their file at startup (the token, the TLS files) find one, and paths outside every
   * mount stay missing, as they would in the pod.
   */
  static Map<String, String> podEnv(Deployment deployment, Path root) throws IOException {
    Map<String, String> env = env(deployment);
    for (Map.Entry<String, String> e : env.entrySet()) {
      for (VolumeMount m : container(deployment).getVolumeMounts()) {
        if (e.getValue().startsWith(m.getMountPath() + "/")) {
          Path file = root.resolve(e.getValue().substring(1));
          Files.createDirectories(file.getParent());
          e.setValue(Files.writeString(file, "mounted-" + e.getKey()).toString());
        }
      }
    }
    return env;
  }
}
