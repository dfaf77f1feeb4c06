package io.shipstream.failover.workflows.activities;

/**
 * What a session store says about itself. {@code offset} is the replication offset in the
 * master's numbering (the master's own offset, or how far a replica has processed), or -1 when the
 * server reports none (Dragonfly replicates per shard and may not); {@code linkUp} is meaningful
 * on a replica only.
 */
public record StoreState(String site, boolean reachable, String error, String flavor, String role,
    String masterHost, Integer masterPort, boolean linkUp, long offset) {

  public static final String MASTER = "master";
  public static final String REPLICA = "replica";

  public static StoreState unreachable(String site, String error) {
    return new StoreState(site, false, error, null, null, null, null, false, -1);
  }

  public boolean isMaster() {
    return reachable && MASTER.equals(role);
  }

  public boolean isReplica() {
    return reachable && REPLICA.equals(role);
  }
}
