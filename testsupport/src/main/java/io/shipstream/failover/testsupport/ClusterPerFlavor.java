package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * One cluster of each {@link Flavor} for a test class whose tests can share it: started on first
 * use (after {@link Flavor#assumeAvailable}, so a flavor that cannot run here is skipped with its
 * reason), each under its own directory, all closed by {@link #close} from an {@code @AfterAll}.
 */
public final class ClusterPerFlavor implements AutoCloseable {
  private final Path baseDir;
  private final int size;
  private final Map<Flavor, DatabaseCluster> clusters = new EnumMap<>(Flavor.class);

  public ClusterPerFlavor(Path baseDir, int size) {
    this.baseDir = baseDir;
    this.size = size;
  }

  /** The flavor's cluster, started now if this is its first use. */
  public synchronized DatabaseCluster of(Flavor flavor) {
    flavor.assumeAvailable();
    return clusters.computeIfAbsent(flavor,
        f -> DatabaseCluster.start(f, baseDir.resolve(f.name().toLowerCase()), size));
  }

  /** Closes every cluster started; never throws. */
  @Override
  public synchronized void close() {
    clusters.values().forEach(DatabaseCluster::close);
    clusters.clear();
  }
}
