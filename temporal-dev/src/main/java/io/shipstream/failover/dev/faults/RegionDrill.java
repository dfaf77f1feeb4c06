package io.shipstream.failover.dev.faults;

/** The region drills: what goes dark, and what must hold. */
public enum RegionDrill {
  PRIMARY_DARK("region-primary-dark", "the primary's region goes dark (control plane elsewhere): the survivors"
      + " promote only once its lease has fenced it; its in-region writer's writes fail from then on"),
  PRIMARY_DARK_SEMI_SYNC("region-primary-dark-semi-sync", "as region-primary-dark with semi-sync required (timeout"
      + " past lease + peer check): nothing the isolated primary acknowledged is lost"),
  PRIMARY_DARK_WATCHER_INSIDE("region-primary-dark-watcher-inside", "as region-primary-dark with a watcher replica"
      + " (not the leader) in the primary's region that its sidecar asks, as a Service may route it: cut off from the"
      + " API server with the region, that watcher must not renew the isolated primary's lease (issue 33)"),
  LEADER_DARK("region-leader-dark", "the region holding the watcher leader and a worker (the dr site's) goes dark,"
      + " the primary elsewhere: the other watcher takes the Lease, nothing fails over, and a switchover requested"
      + " then completes on the other worker"),
  LEADER_AND_PRIMARY_DARK("region-leader-primary-dark", "the primary's region goes dark holding the watcher leader"
      + " and a worker too: the other watcher takes the Lease and the failover completes on the other worker; then"
      + " the region comes back, as region-comes-back"),
  COMES_BACK("region-comes-back", "as region-primary-dark, then the region comes back: the old primary stays"
      + " read-only and rejoins, or is held with divergentGtid and a RecoveryBlocked Event"),
  FLAPS("region-flaps", "the primary's region is dark 2 s (no failover), then dark 5 s, back 1 s, dark 5 s"
      + " (at most one failover); never two writable");

  private final String caseName;
  private final String description;

  RegionDrill(String caseName, String description) {
    this.caseName = caseName;
    this.description = description;
  }

  /** The case's name in the fault suite. */
  public String caseName() {
    return caseName;
  }

  public String describe() {
    return description;
  }
}
