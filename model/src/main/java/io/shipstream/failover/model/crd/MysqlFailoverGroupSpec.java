package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/**
 * The user's declaration. Durations are strings in the Kubernetes style ({@code 2s}, {@code 5m},
 * {@code 1h30m}); every optional field may be left out and {@link GroupConfig} supplies the
 * documented default. The raw form is kept here so that what the user wrote round-trips intact.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MysqlFailoverGroupSpec(
    @Required @Size(min = 2, max = 16) @JsonPropertyDescription("The sites of the group, 2 to 16, unique names.")
    List<SiteSpec> sites,
    @JsonPropertyDescription("Secret holding username/password (and optionally replicationUsername/replicationPassword).")
    SecretRef credentialsSecretRef,
    String pollInterval,
    Integer failureThreshold,
    Integer recoveryThreshold,
    String failoverCooldown,
    String connectionDrainTimeout,
    PlannedFailoverSpec plannedFailover,
    SplitBrainPolicy splitBrainPolicy,
    DnsSpec dns,
    SidecarSpec sidecar,
    DragonflySpec dragonfly) {

  public record SecretRef(@Required String name) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record PlannedFailoverSpec(String maxLagWait, String drainTimeout, String onCooldown) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SplitBrainPolicy(List<String> sitePriorities) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DnsSpec(String hostname, Integer ttl) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SidecarSpec(String leaseTimeout, String peerCheckInterval) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DragonflySpec(Boolean enabled, String flavor, DragonflyPlannedFailoverSpec plannedFailover) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DragonflyPlannedFailoverSpec(String maxSyncWait, String onSyncTimeout) {}
}
