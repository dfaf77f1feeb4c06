package io.shipstream.failover.activities.dryrun;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.model.topology.SemiSyncState;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsProvider;
import io.shipstream.failover.mysql.CredentialsUnavailableException;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.SemiSync;
import io.shipstream.failover.mysql.ServerFlavor;
import io.shipstream.failover.mysql.ServerProbe;
import io.shipstream.failover.mysql.SessionTransport;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.workflows.activities.DryRunActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dry run's reads over the mysql module (the watcher's probe, the semi-sync reading, the
 * transport) and a plain TCP connect to a hook; and its one write, {@code status.dryRun}, with its
 * annotation's removal. No statement here changes a server.
 */
public final class DryRunActivitiesImpl implements DryRunActivities {
  private static final Logger LOG = LoggerFactory.getLogger(DryRunActivitiesImpl.class);
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
  /** Round trips measured per server; the shortest is reported (the others carry scheduling noise). */
  static final int ROUND_TRIPS = 5;
  private static final int STATUS_ATTEMPTS = 5;

  private final CredentialsProvider credentials;
  private final KubernetesClient client;
  private final MysqlConnections connections = MysqlConnections.unpooled();

  public DryRunActivitiesImpl(CredentialsProvider credentials, KubernetesClient client) {
    this.credentials = credentials;
    this.client = client;
  }

  @Override
  public ServerReading read(MysqlTarget target) {
    Credentials login;
    try {
      login = credentials.credentials(target.group(), target.credentialsSecret());
    } catch (CredentialsUnavailableException e) {
      return ServerReading.unreachable(target.site(), "no credentials: " + e.getMessage());
    }
    MysqlAddress address = new MysqlAddress(target.host(), target.port(), target.toString(),
        ServerFlavor.ofSpec(target.flavor()));
    try {
      return MysqlSession.run(connections, address, login, TIMEOUTS, session -> read(target, session));
    } catch (MysqlException e) {
      LOG.debug("dry-run read {}: {}", target, e.getMessage());
      return ServerReading.unreachable(target.site(), e.describe());
    }
  }

  private static ServerReading read(MysqlTarget target, MysqlSession session) throws MysqlException {
    ServerProbe p = ServerProbe.read(session);
    SemiSyncState semiSync = SemiSync.read(session);
    String transport = SessionTransport.describe(session);
    long best = Long.MAX_VALUE;
    for (int i = 0; i < ROUND_TRIPS; i++) {
      long start = System.nanoTime();
      session.queryString("SELECT 1");
      best = Math.min(best, System.nanoTime() - start);
    }
    return new ServerReading(target.site(), true, null, session.dialect().flavor(), p.readOnly(), p.gtidExecuted(),
        p.serverId(), p.replicating(), p.lag(), p.sourceServerId(), p.receivedGtidSet(), p.ioState(), p.lastIoError(),
        p.sqlRunning(), p.lastSqlError(), semiSync, best / 1000, transport);
  }

  @Override
  public Reachability reach(String url, long timeoutMillis) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return new Reachability(false, null, "not a URL: " + e.getMessage());
    }
    int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    long start = System.nanoTime();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(uri.getHost(), port), (int) Math.max(1, timeoutMillis));
      return new Reachability(true, (System.nanoTime() - start) / 1_000_000, null);
    } catch (IOException | IllegalArgumentException e) {
      return new Reachability(false, null, uri.getHost() + ":" + port + ": " + e);
    }
  }

  @Override
  public void record(GroupRef group, DryRunStatus verdict, String annotation) {
    var resource = client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name());
    // The watcher writes the status all the time: an edit bound to the version it read meets a
    // 409 now and then, and is read and made again rather than failing the attempt.
    for (int attempt = 1;; attempt++) {
      try {
        resource.editStatus(g -> {
          MysqlFailoverGroupStatus status = g.getStatus() == null ? MysqlFailoverGroupStatus.empty() : g.getStatus();
          g.setStatus(status.withDryRun(verdict));
          return g;
        });
        break;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == STATUS_ATTEMPTS) {
          throw e;
        }
      }
    }
    try {
      JsonPatch.removeAnnotationIfUnchanged(resource, DryRunAnnotation.ANNOTATION, annotation);
    } catch (KubernetesClientException e) {
      // 422/409: the annotation changed or went meanwhile; a new value is a new request, left alone.
      LOG.info("{}: dry-run annotation not cleared ({}): it changed meanwhile", group, e.getCode());
    }
  }
}
