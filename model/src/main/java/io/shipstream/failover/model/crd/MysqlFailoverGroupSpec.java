package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.GroupConfig;
import java.util.List;

/**
 * The user's declaration. Durations are strings in the Kubernetes style ({@code 2s}, {@code 5m},
 * {@code 1h30m}); every optional field may be left out and {@link GroupConfig} supplies the
 * documented default. The raw form is kept here so that what the user wrote round-trips intact.
 * The {@code @Default}s repeat GroupConfig's defaults so that {@code kubectl get -o yaml} shows the
 * values in force; GroupConfig still applies them for objects created before the CRD carried them.
 */
// The rules sit on the type, not on the sites component: the generator reads a record component's
// annotations from both its field and its accessor, and would write a component's rules twice.
@ValidationRule(value = MysqlFailoverGroupSpec.UNIQUE_SITE_NAMES, message = "site names must be unique")
@ValidationRule(value = MysqlFailoverGroupSpec.TWO_PRIMARY_CANDIDATES,
    message = "at least two sites must be primary-candidate")
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record MysqlFailoverGroupSpec(
    @Required @Size(min = 2, max = 16)
    @JsonPropertyDescription("The sites of the group, 2 to 16, unique names, at least two primary-candidate.")
    List<SiteSpec> sites,
    @JsonPropertyDescription("Secret holding username/password (and optionally replicationUsername/replicationPassword).")
    SecretRef credentialsSecretRef,
    @Default("2s") @Pattern(Durations.SCHEMA_PATTERN) String pollInterval,
    @Default("3") @Min(1) Integer failureThreshold,
    @Default("2") @Min(1) Integer recoveryThreshold,
    @Default("5m") @Pattern(Durations.SCHEMA_PATTERN) String failoverCooldown,
    @Default("30s") @Pattern(Durations.SCHEMA_PATTERN) String connectionDrainTimeout,
    PlannedFailoverSpec plannedFailover,
    SplitBrainPolicy splitBrainPolicy,
    DnsSpec dns,
    SidecarSpec sidecar,
    DragonflySpec dragonfly,
    EmergencyFailoverSpec emergencyFailover,
    @Default("3s") @Pattern(Durations.SCHEMA_PATTERN)
    @JsonPropertyDescription("How long every replica must have heard nothing from the primary (no event, no "
        + "heartbeat) for its view to confirm an unreachable primary dead; a replica whose IO thread lost its "
        + "connection confirms at once. Must exceed the 1 s source heartbeat period.")
    String minSourceSilence,
    @JsonPropertyDescription("Semi-synchronous replication: the primary's commits wait for replicas to acknowledge them.")
    SemiSyncSpec semiSync,
    @JsonPropertyDescription("HTTP webhooks called before and after each failover (see the README's \"Hooks\").")
    HooksSpec hooks,
    @JsonPropertyDescription("TLS of the product's own MySQL sessions and of every replication channel it sets up "
        + "(docs/security.md).")
    TlsSpec tls) {

  /** A spec without {@code tls}: nothing the product opens or points is encrypted. */
  public MysqlFailoverGroupSpec(List<SiteSpec> sites, SecretRef credentialsSecretRef, String pollInterval,
      Integer failureThreshold, Integer recoveryThreshold, String failoverCooldown, String connectionDrainTimeout,
      PlannedFailoverSpec plannedFailover, SplitBrainPolicy splitBrainPolicy, DnsSpec dns, SidecarSpec sidecar,
      DragonflySpec dragonfly, EmergencyFailoverSpec emergencyFailover, String minSourceSilence, SemiSyncSpec semiSync,
      HooksSpec hooks) {
    this(sites, credentialsSecretRef, pollInterval, failureThreshold, recoveryThreshold, failoverCooldown,
        connectionDrainTimeout, plannedFailover, splitBrainPolicy, dns, sidecar, dragonfly, emergencyFailover,
        minSourceSilence, semiSync, hooks, null);
  }

  /** The same spec with {@code tls} (null: none). */
  public MysqlFailoverGroupSpec withTls(TlsSpec tls) {
    return new MysqlFailoverGroupSpec(sites, credentialsSecretRef, pollInterval, failureThreshold, recoveryThreshold,
        failoverCooldown, connectionDrainTimeout, plannedFailover, splitBrainPolicy, dns, sidecar, dragonfly,
        emergencyFailover, minSourceSilence, semiSync, hooks, tls);
  }

  /**
   * A spec without {@code emergencyFailover} (no promotion lag limit), with the default {@code
   * minSourceSilence}, and without semi-synchronous replication.
   */
  public MysqlFailoverGroupSpec(List<SiteSpec> sites, SecretRef credentialsSecretRef, String pollInterval,
      Integer failureThreshold, Integer recoveryThreshold, String failoverCooldown, String connectionDrainTimeout,
      PlannedFailoverSpec plannedFailover, SplitBrainPolicy splitBrainPolicy, DnsSpec dns, SidecarSpec sidecar,
      DragonflySpec dragonfly) {
    this(sites, credentialsSecretRef, pollInterval, failureThreshold, recoveryThreshold, failoverCooldown,
        connectionDrainTimeout, plannedFailover, splitBrainPolicy, dns, sidecar, dragonfly, null, null, null);
  }

  /** A spec without {@code hooks}. */
  public MysqlFailoverGroupSpec(List<SiteSpec> sites, SecretRef credentialsSecretRef, String pollInterval,
      Integer failureThreshold, Integer recoveryThreshold, String failoverCooldown, String connectionDrainTimeout,
      PlannedFailoverSpec plannedFailover, SplitBrainPolicy splitBrainPolicy, DnsSpec dns, SidecarSpec sidecar,
      DragonflySpec dragonfly, EmergencyFailoverSpec emergencyFailover, String minSourceSilence,
      SemiSyncSpec semiSync) {
    this(sites, credentialsSecretRef, pollInterval, failureThreshold, recoveryThreshold, failoverCooldown,
        connectionDrainTimeout, plannedFailover, splitBrainPolicy, dns, sidecar, dragonfly, emergencyFailover,
        minSourceSilence, semiSync, null);
  }

  /** CEL on spec: every site name occurs once. Names are at most 63 characters, so the cost is bounded. */
  public static final String UNIQUE_SITE_NAMES = "self.sites.all(a, self.sites.exists_one(b, b.name == a.name))";

  /**
   * CEL on spec: a failover needs somewhere to go. A missing role is a primary-candidate, as the
   * default says; the API server applies defaults before it checks rules, so has() is only a safety net.
   */
  public static final String TWO_PRIMARY_CANDIDATES =
      "self.sites.filter(s, !has(s.role) || s.role == '" + SiteSpec.ROLE_PRIMARY_CANDIDATE + "').size() >= 2";

  @JsonIgnoreProperties(ignoreUnknown = true)

  public record SecretRef(@Required String name) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record PlannedFailoverSpec(
      @Default("5m") @Pattern(Durations.SCHEMA_PATTERN) String maxLagWait,
      @Default("30s") @Pattern(Durations.SCHEMA_PATTERN) String drainTimeout,
      @Default("reject") @SchemaFrom(type = GroupConfig.OnCooldown.class) @JsonPropertyDescription("reject | defer")
      String onCooldown,
      @Default("none") @SchemaFrom(type = GroupConfig.OnActiveNodeDrain.class)
      @JsonPropertyDescription("none | switchover: when the node of the active site's MySQL pod is cordoned (as "
          + "kubectl drain does first), request a planned failover to the best candidate; needs a "
          + "PodDisruptionBudget on the primary pod (see the README's \"Day-2 controls\").")
      String onActiveNodeDrain) {

    /** Without {@code onActiveNodeDrain} (no switchover when the active site's node is drained). */
    public PlannedFailoverSpec(String maxLagWait, String drainTimeout, String onCooldown) {
      this(maxLagWait, drainTimeout, onCooldown, null);
    }
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SplitBrainPolicy(List<@Pattern(SiteSpec.DNS_LABEL) String> sitePriorities) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DnsSpec(String hostname, @Default("60") @Min(1) Integer ttl) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SidecarSpec(
      @Default("20s") @Pattern(Durations.SCHEMA_PATTERN) String leaseTimeout,
      @Default("5s") @Pattern(Durations.SCHEMA_PATTERN) String peerCheckInterval,
      @JsonPropertyDescription("This group's own sidecar credential: a Secret key in the group's namespace "
          + "holding the token (several, one a line, while it rotates: the first is presented, any is accepted). "
          + "The group's sidecars mount the same Secret as AUTH_TOKEN_FILE; the watcher answers /active-site "
          + "about this group and the worker ticks its sidecars only with it. Unset: the install's shared token, "
          + "and the group is Degraded (SharedSidecarToken) until it names one.") SecretKeyRef tokenSecretRef) {
    public SidecarSpec(String leaseTimeout, String peerCheckInterval) {
      this(leaseTimeout, peerCheckInterval, null);
    }
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DragonflySpec(
      @Default("false") Boolean enabled,
      @Default("dragonfly") @SchemaFrom(type = SchemaEnums.DragonflyFlavor.class)
      @JsonPropertyDescription("dragonfly | redis") String flavor,
      DragonflyPlannedFailoverSpec plannedFailover) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DragonflyPlannedFailoverSpec(
      @Default("30s") @Pattern(Durations.SCHEMA_PATTERN) String maxSyncWait,
      @Default("proceed") @SchemaFrom(type = GroupConfig.OnSyncTimeout.class)
      @JsonPropertyDescription("proceed | fail") String onSyncTimeout) {}

  /**
   * {@code spec.emergencyFailover}. {@code maxLagOnPromotion} counts the transactions of the failed
   * primary's last known set that the chosen candidate had not yet received at its last healthy poll
   * (not seconds behind: a candidate that received everything but applies slowly is within it). A
   * candidate further behind is not promoted automatically; absent means no limit, 0 means it must
   * have received everything.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record EmergencyFailoverSpec(
      @Min(0)
      @JsonPropertyDescription("The most transactions of the failed primary's last known GTID set the candidate may "
          + "not have received for an automatic promotion; absent = no limit, 0 = it must have received everything. "
          + "Override with the annotation bloodraven.shipstream.io/promote-anyway=<site>.")
      Long maxLagOnPromotion) {}

  /**
   * Semi-synchronous replication (see the README's "Semi-synchronous durability"). {@code timeout}
   * is how long a commit waits for acknowledgements before the primary falls back to asynchronous
   * replication; {@code minSyncReplicas} how many replicas must acknowledge (MariaDB: 1);
   * {@code ackFrom} which replicas acknowledge.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SemiSyncSpec(
      @Default("false") Boolean enabled,
      @Default("preferred") @SchemaFrom(type = io.shipstream.failover.model.SemiSyncConfig.Durability.class)
      @JsonPropertyDescription("preferred | required") String dataDurability,
      @Default("10s") @Pattern(Durations.SCHEMA_PATTERN) String timeout,
      @Default("1") @Min(1) Integer minSyncReplicas,
      @Default("primaryCandidates") @SchemaFrom(type = io.shipstream.failover.model.SemiSyncConfig.AckFrom.class)
      @JsonPropertyDescription("primaryCandidates | all: which replicas acknowledge commits") String ackFrom) {}

  /**
   * {@code spec.hooks}: the webhooks of every failover (see {@link io.shipstream.failover.model.HooksConfig}).
   * Either may be left out.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record HooksSpec(
      @JsonPropertyDescription("Called before the source is fenced; a planned failover goes on only on a 2xx answer.")
      HookSpec preFailover,
      @JsonPropertyDescription("Called once the failover's outcome is in the status; a failure is only a Warning.")
      HookSpec postFailover) {}

  /** One webhook: a POST of the failover's JSON description to {@code url}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record HookSpec(
      @Required @Pattern(HOOK_URL)
      @JsonPropertyDescription("The http:// or https:// URL the JSON body is POSTed to.") String url,
      @Default("10s") @Pattern(Durations.SCHEMA_PATTERN)
      @JsonPropertyDescription("How long the call may take, retries included (an emergency pre-hook: at most 1s, "
          + "one attempt).") String timeout,
      @JsonPropertyDescription("A Secret key in the group's namespace whose value is sent as "
          + "'Authorization: Bearer <value>'.") SecretKeyRef bearerTokenSecret) {}

  /** A key of a Secret in the group's namespace; {@code key} defaults to {@code token}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SecretKeyRef(@Required String name, @Default(SecretKeyRef.DEFAULT_KEY) String key) {
    /** The key a reference that names none reads. */
    public static final String DEFAULT_KEY = "token";
  }

  /** What the schema admits as a hook URL; GroupConfig checks the rest (a host, no blanks). */
  public static final String HOOK_URL = "^https?://.+$";

  /**
   * {@code spec.tls} (see {@link io.shipstream.failover.model.tls.TlsConfig}). Either part may be
   * left out; absent means disabled.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TlsSpec(
      @JsonPropertyDescription("The worker's and the watcher's sessions to the group's servers.")
      SessionTlsSpec sessions,
      @JsonPropertyDescription("Every replication channel the product points (failovers, rejoins, catch-up).")
      ReplicationTlsSpec replication) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SessionTlsSpec(
      @Default("disabled") @SchemaFrom(type = SchemaEnums.TlsMode.class)
      @JsonPropertyDescription("disabled | required | verify-ca | verify-identity ('preferred' is refused: it can fall"
          + " back to plaintext)") String mode,
      @JsonPropertyDescription("Secret in the group's namespace with ca.crt, and optionally tls.crt and tls.key (PEM,"
          + " PKCS#8 key) for a client certificate.") SecretRef secretRef) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ReplicationTlsSpec(
      @Default("disabled") @SchemaFrom(type = SchemaEnums.TlsMode.class)
      @JsonPropertyDescription("disabled | required | verify-ca | verify-identity: the least every channel the product"
          + " sets up gets; it refuses to set up a weaker one") String mode,
      @JsonPropertyDescription("The CA file as every replica's mysqld sees it (its own file system).") String caFile,
      @JsonPropertyDescription("The replica's client certificate file, as its mysqld sees it.") String certFile,
      @JsonPropertyDescription("The key of certFile, as its mysqld sees it.") String keyFile,
      @JsonPropertyDescription("Per site, files that differ from the defaults above.") List<ChannelFilesSpec> sites) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ChannelFilesSpec(
      @Required @Pattern(SiteSpec.DNS_LABEL) String site, String caFile, String certFile, String keyFile) {}
}
