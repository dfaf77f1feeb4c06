package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The closed value sets of string spec fields, given to the CRD generator through
 * {@code @SchemaFrom} so that the API server refuses a misspelt value at {@code kubectl apply}.
 * The fields themselves stay strings: an object stored before a value set was closed still reads,
 * and {@link io.shipstream.failover.model.GroupConfig} names the bad value instead of the
 * deserializer failing on the whole resource.
 */
final class SchemaEnums {
  private SchemaEnums() {}

  enum SiteRole {
    @JsonProperty(SiteSpec.ROLE_PRIMARY_CANDIDATE) PRIMARY_CANDIDATE,
    @JsonProperty(SiteSpec.ROLE_DR_ONLY) DR_ONLY,
    @JsonProperty(SiteSpec.ROLE_READ_ONLY) READ_ONLY
  }

  enum ServerFlavor {
    @JsonProperty(SiteSpec.FLAVOR_MYSQL) MYSQL,
    @JsonProperty(SiteSpec.FLAVOR_MARIADB) MARIADB
  }

  enum DragonflyFlavor {
    @JsonProperty("dragonfly") DRAGONFLY,
    @JsonProperty("redis") REDIS
  }

  enum TlsMode {
    @JsonProperty("disabled") DISABLED,
    @JsonProperty("required") REQUIRED,
    @JsonProperty("verify-ca") VERIFY_CA,
    @JsonProperty("verify-identity") VERIFY_IDENTITY
  }
}
