package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * The user's declaration. Durations are strings in the Kubernetes style ({@code 2s}, {@code 5m},
 * {@code 1h30m}); every optional field may be left out and {@link GroupConfig} supplies the
 * documented default. The raw form is kept here so that what the user wrote round-trips intact.
 * The {@code @Default}s repeat GroupConfig's defaults so that {@code kubectl get -o yaml} shows the
 * values in force; GroupConfig still applies them for objects created before the CRD carried them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MysqlFailoverGroupSpec(
    @Required @Size(min = 2, max = 16) @JsonPropertyDescription("The sites of the group, 2 to 16, unique names.")
    List<SiteSpec> sites,
    @JsonPropertyDescription("Secret holding username/password (and optionally replicationUsername/replicationPassword).")
    SecretRef credentialsSecretRef,
    @Default("2s") String pollInterval,
    @Default("3") Integer failureThreshold,
    @Default("2") Integer recoveryThreshold,
    @Default("5m") String failoverCooldown,
    @Default("30s") String connectionDrainTimeout,
    PlannedFailoverSpec plannedFailover,
    SplitBrainPolicy splitBrainPolicy,
    DnsSpec dns,
    SidecarSpec sidecar,
    DragonflySpec dragonfly) {

  public record SecretRef(@Required String name) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record PlannedFailoverSpec(
      @Default("5m") String maxLagWait,
      @Default("30s") String drainTimeout,
      @Default("reject") @JsonPropertyDescription("reject | defer") String onCooldown) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SplitBrainPolicy(List<String> sitePriorities) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DnsSpec(String hostname, @Default("60") Integer ttl) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SidecarSpec(@Default("20s") String leaseTimeout, @Default("5s") String peerCheckInterval) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DragonflySpec(
      @Default("false") Boolean enabled,
      @Default("dragonfly") @JsonPropertyDescription("dragonfly | redis") String flavor,
      DragonflyPlannedFailoverSpec plannedFailover) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DragonflyPlannedFailoverSpec(
      @Default("30s") String maxSyncWait,
      @Default("proceed") @JsonPropertyDescription("proceed | fail") String onSyncTimeout) {}
}
