package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary and its read-only GTID replicas of one {@link Flavor}, with {@code appdb.writes}
 * created on the primary and replicated. Servers are started in parallel: startup is mostly
 * waiting on disk.
 */
public final class DatabaseCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DatabaseCluster.class);
  /** What {@link WriteLoad} writes to: one row per acknowledged id. */
  public static final String WRITES_TABLE = "appdb.writes";
  private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);

  private final Flavor flavor;
  private final List<DatabaseServer> servers;

  private DatabaseCluster(Flavor flavor, List<DatabaseServer> servers) {
    this.flavor = flavor;
    this.servers = List.copyOf(servers);
  }

  /**
   * Starts {@code size} servers of {@code flavor} under {@code baseDir}: server 0 is the primary,
   * writable; the replicas are made read-only by a statement.
   */
  public static DatabaseCluster start(Flavor flavor, Path baseDir, int size) {
    return start(flavor, baseDir, size, false);
  }

  /**
   * As {@link #start}, with every server configured to start read-only ({@link
   * Flavor#startReadOnlyOption}, kept for every restart) as the README asks of production servers,
   * and no statement run on read_only since, so that a sidecar sees a start-up read-only that it
   * may lift on the active site. Nothing here makes the primary writable: adoption (every server
   * read-only, one source the others follow) and its sidecar do.
   */
  public static DatabaseCluster startReadOnly(Flavor flavor, Path baseDir, int size) {
    return start(flavor, baseDir, size, true);
  }

  private static DatabaseCluster start(Flavor flavor, Path baseDir, int size, boolean startReadOnly) {
    return start(flavor, baseDir, size, startReadOnly, List.of());
  }

  /**
   * As {@link #start} or {@link #startReadOnly}, with {@code options} kept for every start of every
   * server (certificates: {@link TestAuthority#serverOptions}).
   */
  public static DatabaseCluster start(Flavor flavor, Path baseDir, int size, boolean startReadOnly,
      List<String> options) {
    if (size < 1) {
      throw new IllegalArgumentException("a cluster needs at least one server");
    }
    long started = System.nanoTime();
    List<String> readOnly = List.of(flavor.startReadOnlyOption());
    // MySQL's super_read_only refuses the operator's set-up statements too: its primary starts
    // writable, is set up, and only then restarts configured read-only (below).
    boolean primaryLater = startReadOnly && !flavor.operatorWritesWhileStartedReadOnly();
    DatabaseCluster cluster = new DatabaseCluster(flavor, startAll(flavor, baseDir, size,
        i -> concat(options, !startReadOnly || i == 0 && primaryLater ? List.of() : readOnly)));
    try {
      DatabaseServer primary = cluster.primary();
      primary.execute(
          "CREATE DATABASE appdb",
          "CREATE TABLE " + WRITES_TABLE + " (id BIGINT PRIMARY KEY, at TIMESTAMP(6) NOT NULL)");
      for (DatabaseServer replica : cluster.replicas()) {
        if (!startReadOnly) {
          replica.setReadOnly(true);
        }
        replica.replicateFrom(primary);
      }
      cluster.awaitReplicasCaughtUp(SETUP_TIMEOUT);
      if (primaryLater) {
        ((LocalDatabaseServer) primary).reconfigure(readOnly);
        // The replicas reconnect to the restarted primary by themselves (a connect retry of 1 s).
        for (DatabaseServer replica : cluster.replicas()) {
          ReplicaStatus.awaitRunning(replica, SETUP_TIMEOUT);
        }
      }
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    LOG.info("{} cluster of {} ready in {} ms: {}", flavor, size, (System.nanoTime() - started) / 1_000_000,
        cluster.servers);
    return cluster;
  }

  private static List<DatabaseServer> startAll(Flavor flavor, Path baseDir, int size,
      java.util.function.IntFunction<List<String>> options) {
    // The first start makes the template; doing it up front keeps the parallel starts from all
    // queueing on its lock while one of them initialises it.
    if (flavor == Flavor.MYSQL) {
      MySqlTemplate.datadir();
    } else {
      MariaDbTemplate.datadir();
    }
    ExecutorService starter = Executors.newFixedThreadPool(Math.min(size, 4));
    List<CompletableFuture<DatabaseServer>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        List<String> serverOptions = options.apply(i);
        futures.add(CompletableFuture.supplyAsync(() -> flavor.start(baseDir, null, serverOptions), starter));
      }
      List<DatabaseServer> started = new ArrayList<>();
      RuntimeException failure = null;
      for (CompletableFuture<DatabaseServer> future : futures) {
        try {
          started.add(future.join());
        } catch (CompletionException e) {
          failure = e.getCause() instanceof RuntimeException runtime ? runtime : e;
        }
      }
      if (failure != null) {
        started.forEach(DatabaseServer::close);
        throw failure;
      }
      return started;
    } finally {
      starter.shutdown();
    }
  }

  public Flavor flavor() {
    return flavor;
  }

  /** The server started as primary; after a failover in a test it may no longer be the writable one. */
  public DatabaseServer primary() {
    return servers.get(0);
  }

  /** The servers started as replicas. */
  public List<DatabaseServer> replicas() {
    return servers.subList(1, servers.size());
  }

  public DatabaseServer server(int index) {
    return servers.get(index);
  }

  public List<DatabaseServer> servers() {
    return servers;
  }

  /** Waits until every replica has applied everything the initial primary has in its binlog. */
  public void awaitReplicasCaughtUp(Duration timeout) {
    String target = primary().gtidExecuted();
    for (DatabaseServer replica : replicas()) {
      replica.awaitReplicated(target, timeout);
    }
  }

  /** The ids in {@code appdb.writes} on one server, ascending. */
  public static List<Long> writtenIds(DatabaseServer server) {
    List<Long> ids = new ArrayList<>();
    try (Connection connection = server.adminConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT id FROM " + WRITES_TABLE + " ORDER BY id")) {
      while (rows.next()) {
        ids.add(rows.getLong(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(server.name() + ": " + e.getMessage(), e);
    }
    return ids;
  }

  /** Closes every server; never throws, so it is safe in a finally or @AfterAll. */
  @Override
  public void close() {
    for (DatabaseServer server : servers) {
      try {
        server.close();
      } catch (RuntimeException e) {
        LOG.warn("closing {} failed: {}", server.name(), e.getMessage());
      }
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
