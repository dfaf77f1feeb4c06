package io.shipstream.failover.watcher.activesite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.wire.Golden;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The watcher's {@code /active-site} answers against every released one ({@link Golden}): each
 * shape HEAD's watcher gives carries every field a released sidecar reads, so that sidecars of
 * release N keep their lease, their view and their timing from a watcher of release N+1.
 */
class ActiveSiteWireCompatibilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "group-token";
  private static final String BEARER = "Bearer " + TOKEN;
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T10:00:00.250Z"), ZoneOffset.UTC);
  private static final String QUERY = "namespace=shop&group=orders";

  @Test
  void everyShapeCarriesEveryFieldOfEveryReleasedAnswer() throws Exception {
    MysqlFailoverGroup active = group("iad");
    active.setStatus(active.getStatus().withFencedSites(List.of("dfw")));
    ActiveSiteHandler live = new ActiveSiteHandler(ref -> Optional.of(active), () -> true, SharedToken.of(TOKEN), CLOCK)
        .withFreshReads(ref -> Optional.of(active), (ref, site) -> {});
    ActiveSiteHandler adopting = new ActiveSiteHandler(ref -> Optional.of(group(null)), () -> true,
        SharedToken.of(TOKEN), CLOCK);
    GroupRef orders = new GroupRef("shop", "orders");
    ActiveSiteHandler gone = new ActiveSiteHandler(ref -> Optional.empty(), () -> true, SharedToken.of(TOKEN), CLOCK)
        .withFreshReads(ref -> Optional.empty(), (ref, site) -> {})
        .withTombstones(
            ref -> Optional.of(new Tombstones.Tombstone(orders, "uid-1", Instant.parse("2026-12-02T09:59:00Z"))));

    for (String release : Golden.RELEASES) {
      check(release, "active-site.json", live.answer("GET", ActiveSiteHandler.PATH, QUERY, BEARER));
      check(release, "active-site-fresh.json",
          live.answer("GET", ActiveSiteHandler.PATH, QUERY + "&fresh=true&site=dfw", BEARER));
      check(release, "active-site-never-active.json", adopting.answer("GET", ActiveSiteHandler.PATH, QUERY, BEARER));
      check(release, "active-site-deleted.json", gone.answer("GET", ActiveSiteHandler.PATH, QUERY, BEARER));
      ActiveSiteHandler.Reply refused = live.answer("GET", ActiveSiteHandler.PATH, "namespace=shop", BEARER);
      assertThat(refused.status()).isEqualTo(400);
      check(release, "active-site-error.json", refused);
    }
  }

  private static void check(String release, String file, ActiveSiteHandler.Reply reply) throws Exception {
    assertThat(Golden.missing(Golden.tree(release, file), JSON.readTree(reply.body())))
        .as("fields of %s/%s HEAD's watcher no longer writes", release, file).isEmpty();
  }

  private static MysqlFailoverGroup group(String activeSite) {
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    group.setMetadata(new ObjectMetaBuilder().withNamespace("shop").withName("orders").build());
    group.setSpec(new MysqlFailoverGroupSpec(List.of(MockCluster.site("orders", "iad", "10.0.0.1"),
        MockCluster.site("orders", "dfw", "10.0.0.2")), new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"),
        null, null, null, null, null, null, null, null, new MysqlFailoverGroupSpec.SidecarSpec("20s", "5s"), null));
    group.setStatus(activeSite == null ? null : MysqlFailoverGroupStatus.empty().withActiveSite(activeSite));
    return group;
  }
}
