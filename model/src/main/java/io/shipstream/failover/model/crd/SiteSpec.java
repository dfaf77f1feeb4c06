package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Map;

/** One site of a group: where its MySQL, pods, nodes, sidecar and session store are. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SiteSpec(
    // The maxLength repeats what the pattern implies because the API server's CEL cost estimate reads
    // only maxLength: without it the unique-name rule on spec.sites is priced as if names were megabytes.
    @Required @Pattern(DNS_LABEL) @Size(max = 63)
    @JsonPropertyDescription("A DNS label; the value of the planned-failover annotation.") String name,
    @Default(ROLE_PRIMARY_CANDIDATE) @SchemaFrom(type = SchemaEnums.SiteRole.class)
    @JsonPropertyDescription("primary-candidate | dr-only | read-only") String role,
    String zone,
    @Required Endpoint mysql,
    @JsonPropertyDescription("Selects the pods of this site that carry the shipstream.io/role label.")
    Map<String, String> podSelector,
    @Required @JsonPropertyDescription("Selects the nodes of this site that get the read-only taint.")
    Map<String, String> taintNodeSelector,
    @JsonPropertyDescription("The address the DNS A record points at while this site is active.") String lbIP,
    Sidecar sidecar,
    Endpoint dragonfly,
    @SchemaFrom(type = SchemaEnums.ServerFlavor.class)
    @JsonPropertyDescription("mysql | mariadb: the flavor of this site's server, which picks the driver before the"
        + " first connection (MySQL Connector/J or MariaDB Connector/J). Absent: read from the server's greeting."
        + " Every site of a group must be of one flavor.")
    String flavor) {

  /** A site whose server's flavor is read from its greeting. */
  public SiteSpec(String name, String role, String zone, Endpoint mysql, Map<String, String> podSelector,
      Map<String, String> taintNodeSelector, String lbIP, Sidecar sidecar, Endpoint dragonfly) {
    this(name, role, zone, mysql, podSelector, taintNodeSelector, lbIP, sidecar, dragonfly, null);
  }

  public static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$";
  public static final String ROLE_PRIMARY_CANDIDATE = "primary-candidate";
  public static final String ROLE_DR_ONLY = "dr-only";
  public static final String ROLE_READ_ONLY = "read-only";
  public static final String FLAVOR_MYSQL = "mysql";
  public static final String FLAVOR_MARIADB = "mariadb";

  /** The same site with its server's flavor declared (null: read from its greeting). */
  public SiteSpec withFlavor(String flavor) {
    return new SiteSpec(name, role, zone, mysql, podSelector, taintNodeSelector, lbIP, sidecar, dragonfly, flavor);
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Endpoint(@Required String host, @Min(1) @Max(65535) Integer port) {}

  @JsonIgnoreProperties(ignoreUnknown = true)

  public record Sidecar(String url) {}

  /** Derived from {@code role}; ignored by Jackson so it neither appears in the CRD schema nor is written back. */
  @JsonIgnore
  public boolean isPrimaryCandidate() {
    return role == null || ROLE_PRIMARY_CANDIDATE.equals(role);
  }
}
