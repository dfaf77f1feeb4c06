package io.shipstream.failover.model;

/**
 * The values of the role label ({@code shipstream.io/role}) on a site's MySQL pods: the failover
 * workflows move it, the routing code writes it and the primary Service selects on it.
 */
public final class RoleLabel {
  /** The pods of the active site: the primary Service selects them. */
  public static final String PRIMARY = "primary";
  /** The pods of every other site. */
  public static final String REPLICA = "replica";
  /**
   * The pods of a site a DBA fenced (bloodraven.shipstream.io/fenced-sites) that is not the active
   * site: out of the replicas Service. A fenced active site keeps {@link #PRIMARY}: its server
   * refuses writes, and no other site may take them.
   */
  public static final String FENCED = "fenced";

  private RoleLabel() {}
}
