package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A primary and its read-only GTID replicas of MariaDB, with {@code appdb.writes} created on the
 * primary and replicated: the {@link DatabaseCluster} of {@link Flavor#MARIADB}, typed for the
 * tests that use MariaDB's own statements.
 */
public final class MariaDbCluster implements AutoCloseable {
  public static final String WRITES_TABLE = DatabaseCluster.WRITES_TABLE;

  private final DatabaseCluster cluster;
  private final List<MariaDbServer> servers;

  private MariaDbCluster(DatabaseCluster cluster) {
    this.cluster = cluster;
    this.servers = cluster.servers().stream().map(MariaDbServer.class::cast).toList();
  }

  /** Starts {@code size} servers under {@code baseDir}: server 0 is the primary. */
  public static MariaDbCluster start(Path baseDir, int size) {
    return new MariaDbCluster(DatabaseCluster.start(Flavor.MARIADB, baseDir, size));
  }

  /** The server started as primary; after a failover in a test it may no longer be the writable one. */
  public MariaDbServer primary() {
    return servers.get(0);
  }

  /** The servers started as replicas. */
  public List<MariaDbServer> replicas() {
    return servers.subList(1, servers.size());
  }

  public MariaDbServer server(int index) {
    return servers.get(index);
  }

  public List<MariaDbServer> servers() {
    return servers;
  }

  /** Waits until every replica has applied everything the initial primary has in its binlog. */
  public void awaitReplicasCaughtUp(Duration timeout) {
    cluster.awaitReplicasCaughtUp(timeout);
  }

  /** The ids in {@code appdb.writes} on one server, ascending. */
  public static List<Long> writtenIds(MariaDbServer server) {
    return DatabaseCluster.writtenIds(server);
  }

  /** Closes every server; never throws, so it is safe in a finally or @AfterAll. */
  @Override
  public void close() {
    cluster.close();
  }
}
