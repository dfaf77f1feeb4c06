package io.shipstream.failover.model;

/** Names one {@code MysqlFailoverGroup}. */
public record GroupRef(String namespace, String name) {
  public GroupRef {
    if (namespace == null || namespace.isBlank() || name == null || name.isBlank()) {
      throw new IllegalArgumentException("namespace and name are required");
    }
  }

  /**
   * The one workflow id every failover of this group runs under, planned or emergency: Temporal
   * refuses a second start while one runs, which is the mutual-exclusion guard.
   */
  public String workflowId() {
    return "mysqlfailovergroup/" + namespace + "/" + name;
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
