package io.shipstream.failover.dev;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.Wire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The primary's region goes dark with a watcher replica inside it that the primary's sidecar asks
 * (issue 33), on a {@link RegionStack}. In the chart the sidecars reach the watchers through a
 * Service that routes to any replica, and the replicas are spread over regions: the old primary's
 * sidecar keeps reaching the replica in its own region after the cut, while that replica's link
 * to the API server is silently dropped. Its informer does not notice, so unless the replica
 * knows how stale its cache is and the sidecar counts its answers only as of that, it goes on
 * naming the old primary active and renewing its lease, and the failover the stack's own watcher
 * runs outside promotes beside a writable old primary.
 *
 * <p>The replica is a watcher alone ({@link RegionReplica}, not the leader: the stack's own
 * watcher leads and starts the failover, the stack's worker runs it), its Temporal and API links
 * through the region's links; the sidecar of the primary's site is sent to it ({@link
 * RegionNetwork#routeWatcher}), the other sidecars keep asking the stack's watcher. The outage is
 * then {@link RegionStack#primaryRegionDark} and judged as the first drill; the run also reads
 * from the replica's {@code /answers} what it answered the old primary's sidecar, which shows the
 * drill asked it.
 */
public final class WatcherInsideOutage {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * One run: the outage ({@code dark}) and what the watcher inside answered the old primary's
   * sidecar while the region was dark, the {@code litMs} from the cut (it had answered it before
   * the cut, or the run would have stopped): {@code answersWhileDark} how many of the answers it
   * still holds came then (it keeps the last {@value io.shipstream.failover.runtime.AnswerLog#PER_ASKER}),
   * {@code lastAnswerMs} the last one's time from the cut (-1: none) and the site it named ({@code
   * lastNamed}).
   */
  public record Run(RegionStack.DarkRun dark, String region, int answersWhileDark, double litMs, double lastAnswerMs,
      String lastNamed) {}

  private final RegionStack regions;
  private final FailoverStack stack;
  private final RegionNetwork network;

  public WatcherInsideOutage(RegionStack regions) {
    this.regions = regions;
    this.stack = regions.stack();
    this.network = regions.network();
  }

  /**
   * Puts the group on the install's shared token, places a watcher replica in the primary's
   * region, sends the primary's sidecar to it, waits until it answered that sidecar, then darkens
   * the region ({@link RegionStack#primaryRegionDark}, without the return). The sidecar is sent
   * back to the stack's watcher, the replica stopped and the group's own credential named again
   * before this returns.
   */
  public Run primaryRegionDark() {
    String from = stack.api().resource().getStatus().activeSite();
    String region = network.regionOf(from);
    MysqlFailoverGroupSpec.SidecarSpec own = stack.api().resource().getSpec().sidecar();
    // On the install's shared token (the same value the sidecars hold), before the replica lists
    // the group. With a credential of its own, the replica reads the group's Secret from the API
    // server for /active-site every SidecarCredentials.TTL (5 s); once that read hangs on the
    // dropped link, no answer reaches the sidecar and it fences by lease: safe by an accident of
    // the credential check, which the shared token does not have (and the drill would not show
    // what the watcher's answers alone do).
    stack.api().editSpec(s -> GroupSpecs.withSidecar(s, new MysqlFailoverGroupSpec.SidecarSpec(own.leaseTimeout(),
        own.peerCheckInterval(), null)));
    try (RegionReplica placed = RegionReplica.place(regions, region, false)) {
      InetSocketAddress inside = placed.replica().httpAddress();
      network.routeWatcher(from, region, inside);
      try {
        RegionStack.await(() -> !answers(inside, from).answers().isEmpty(), "the sidecar of " + from
            + " asking the watcher in " + region);
        RegionStack.DarkRun run = regions.primaryRegionDark(false);
        long darkAt = network.darkSince(region);
        double litMs = (network.litAgain(region) - darkAt) / 1e6;
        // Read once the region is lit again: until the replica has confirmed its cache again it
        // may answer 503, so the read is retried.
        long[] readAt = new long[1];
        AnswersReply[] reply = new AnswersReply[1];
        RegionStack.await(() -> {
          readAt[0] = System.nanoTime();
          reply[0] = answers(inside, from);
          return true;
        }, "the watcher in " + region + " answering /answers");
        int whileDark = 0;
        double last = -1;
        String named = null;
        for (AnswersReply.Answer a : reply[0].answers()) {
          double fromCut = (readAt[0] - darkAt) / 1e6 - a.agoMillis();
          if (fromCut >= 0 && fromCut < litMs) {
            whileDark++;
            if (fromCut > last) {
              last = fromCut;
              named = a.activeSite();
            }
          }
        }
        return new Run(run, region, whileDark, litMs, last, named);
      } finally {
        network.routeWatcherHome(from);
      }
    } finally {
      stack.api().editSpec(s -> GroupSpecs.withSidecar(s, own));
    }
  }

  /** The watcher at {@code watcher}'s {@code GET /answers} about {@code site}, asked directly. */
  private AnswersReply answers(InetSocketAddress watcher, String site) {
    GroupRef group = stack.api().ref();
    URI uri = URI.create("http://" + watcher.getHostString() + ":" + watcher.getPort() + "/answers?namespace="
        + encode(group.namespace()) + "&group=" + encode(group.name()) + "&site=" + encode(site));
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri)
          .header("Authorization", "Bearer " + FailoverStack.SIDECAR_TOKEN).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("/answers answered " + response.statusCode() + ": " + response.body());
      }
      return Wire.read(response.body(), AnswersReply.class);
    } catch (IOException e) {
      throw new UncheckedIOException("the watcher at " + watcher + " did not answer /answers", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
