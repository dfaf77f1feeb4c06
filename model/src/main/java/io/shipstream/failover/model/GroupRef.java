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

  /** The group a failover workflow id names; null for an id of another form. */
  public static GroupRef fromWorkflowId(String workflowId) {
    String prefix = "mysqlfailovergroup/";
    if (workflowId == null || !workflowId.startsWith(prefix)) {
      return null;
    }
    String[] parts = workflowId.substring(prefix.length()).split("/", -1);
    return parts.length == 2 && !parts[0].isBlank() && !parts[1].isBlank() ? new GroupRef(parts[0], parts[1]) : null;
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
