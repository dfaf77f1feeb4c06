package io.shipstream.failover.mysql;

import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import java.nio.file.Path;

/**
 * The rig of an IT about a replica and its source on real servers: a cluster of two of one flavor,
 * the replica pointed at the source as the activities point it ({@link ItSessions#replicateFrom})
 * and replicating, and an admin session on the replica. Closing it closes the session, then the
 * servers.
 */
record SourceAndReplica(DatabaseCluster cluster, DatabaseServer source, DatabaseServer replica, MysqlSession onReplica)
    implements AutoCloseable {

  /** Starts the rig in {@code work}, or skips the test where {@code flavor}'s server is not installed. */
  static SourceAndReplica start(Flavor flavor, Path work) throws Exception {
    flavor.assumeAvailable();
    DatabaseCluster cluster = DatabaseCluster.start(flavor, work, 2);
    try {
      DatabaseServer replica = cluster.replicas().get(0);
      MysqlSession onReplica = ItSessions.open(replica);
      try {
        ItSessions.replicateFrom(onReplica, cluster.primary());
      } catch (Exception | Error e) {
        onReplica.close();
        throw e;
      }
      return new SourceAndReplica(cluster, cluster.primary(), replica, onReplica);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  @Override
  public void close() {
    try (DatabaseCluster servers = cluster) {
      onReplica.close();
    }
  }
}
