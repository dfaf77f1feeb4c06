package io.shipstream.failover.activities.sidecar;

import java.io.IOException;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Objects;

/**
 * Where the watcher's replicas answer, so that the worker can read what each one lately answered
 * the old primary's sidecar ({@code GET /answers}): every replica renews the sidecars' leases (the
 * sidecars reach them through one Service), so the last renewal is known only from all of them.
 */
public interface WatcherReplicas {
  /**
   * Every replica that may be answering now, each at its own address, never through the Service
   * (which would answer from one of them).
   *
   * @throws IOException when they cannot be listed, or a replica cannot be read (a pod that is not
   *     running has exited, and what it last answered is lost with it)
   */
  Listing list() throws IOException;

  /** The replicas, and the client that reaches them (its TLS verifying the names they are issued for). */
  record Listing(List<Replica> replicas, HttpClient client) {
    public Listing {
      replicas = List.copyOf(replicas);
      Objects.requireNonNull(client, "client");
    }
  }

  /** One replica: a name for the messages (its pod), and its base URL. */
  record Replica(String name, String baseUrl) {}

  /** A worker not told where the replicas are: no last renewal can be known, the failover keeps its wait. */
  WatcherReplicas UNKNOWN = () -> {
    throw new IOException("the worker is not told where the watcher's replicas are (WATCHER_POD_SELECTOR)");
  };
}
