package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.DrainSwitchover;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.testsupport.MockCluster;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DrainWatch} with the real {@link KubeDrainView} against the mock API server: the cordoned
 * node is found through the active site's pod, the request is the planned-failover annotation on
 * the server, and each outcome is acted on once per cordon episode.
 */
class DrainWatchTest {
  private final MockCluster cluster = MockCluster.start();
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final DrainWatch drains = new DrainWatch(new KubeDrainView(cluster.client()), effects);

  @BeforeEach
  void group() {
    MysqlFailoverGroupSpec base = Fixtures.spec("5m", List.of());
    MysqlFailoverGroupSpec spec = new MysqlFailoverGroupSpec(base.sites(), base.credentialsSecretRef(),
        base.pollInterval(), base.failureThreshold(), base.recoveryThreshold(), base.failoverCooldown(), null,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, null, "switchover"), base.splitBrainPolicy(),
        null, null, null);
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(ORDERS.name());
    cr.getMetadata().setNamespace(ORDERS.namespace());
    cr.getMetadata().setAnnotations(new HashMap<>(Map.of("unrelated", "x")));
    cr.setSpec(spec);
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).resource(cr).create();
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    for (String site : List.of("iad", "pdx", "dr")) {
      cluster.createNode("node-" + site, MockCluster.nodeLabels("orders", site));
      cluster.createPod("mysql-" + site + "-0", MockCluster.podLabels(site), "node-" + site);
    }
  }

  @AfterEach
  void close() {
    cluster.close();
  }

  private static Map<String, SiteObservation> healthy() {
    return observations(Fixtures.writable("iad", "0-1-100"), Fixtures.replica("pdx", "0-1-100"),
        Fixtures.replica("dr", "0-1-100"));
  }

  private static Map<String, SiteObservation> observations(Probe... probes) {
    Map<String, SiteObservation> out = new LinkedHashMap<>();
    for (Probe p : probes) {
      out.put(p.site(), new SiteObservation(p.observed(), p, p.reachable() ? p : null));
    }
    return out;
  }

  private DrainSwitchover.Outcome check(Map<String, SiteObservation> sites, boolean paused) {
    MysqlFailoverGroup g = cluster.group(ORDERS);
    return drains.check(ORDERS, GroupConfig.resolve(g.getSpec()), g, sites, paused);
  }

  private String annotation() {
    return cluster.group(ORDERS).getMetadata().getAnnotations().get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
  }

  private void removeAnnotation() {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .edit(g -> {
          g.getMetadata().getAnnotations().remove(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
          return g;
        });
  }

  @Test
  void aCordonedActiveNodeRequestsOneSwitchoverPerEpisode() {
    assertThat(check(healthy(), false)).isInstanceOf(DrainSwitchover.Nothing.class);
    cluster.cordon("node-pdx", true);
    assertThat(check(healthy(), false)).as("a replica's node is no concern")
        .isInstanceOf(DrainSwitchover.Nothing.class);
    assertThat(annotation()).isNull();

    cluster.cordon("node-iad", true);
    assertThat(check(healthy(), false)).isInstanceOf(DrainSwitchover.Request.class);
    assertThat(annotation()).isEqualTo("pdx");
    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).containsEntry("unrelated", "x");
    assertThat(effects.events()).singleElement().asString().startsWith("Normal DrainSwitchoverRequested: node "
        + "node-iad of the active site iad is cordoned: switching over to pdx");

    // Refused (the cooldown) and cleared by the planned path: not requested again while cordoned.
    removeAnnotation();
    check(healthy(), false);
    assertThat(annotation()).isNull();
    assertThat(effects.events()).hasSize(1);

    // A new episode: uncordoned, then cordoned again.
    cluster.cordon("node-iad", false);
    assertThat(check(healthy(), false)).isInstanceOf(DrainSwitchover.Nothing.class);
    cluster.cordon("node-iad", true);
    check(healthy(), false);
    assertThat(annotation()).isEqualTo("pdx");
    assertThat(effects.events()).hasSize(2);
  }

  @Test
  void aPresentRequestIsNeverOverwritten() {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .edit(g -> {
          g.getMetadata().getAnnotations().put(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "dr");
          return g;
        });
    cluster.cordon("node-iad", true);

    assertThat(check(healthy(), false)).isInstanceOf(DrainSwitchover.Nothing.class);
    assertThat(annotation()).isEqualTo("dr");
    assertThat(effects.events()).isEmpty();
  }

  @Test
  void noCandidateIsOneWarningAndNothingRequested() {
    cluster.cordon("node-iad", true);
    Map<String, SiteObservation> pdxDown = observations(Fixtures.writable("iad", "0-1-100"), Fixtures.dead("pdx"),
        Fixtures.replica("dr", "0-1-100"));

    check(pdxDown, false);
    check(pdxDown, false);

    assertThat(annotation()).isNull();
    assertThat(effects.events()).singleElement().asString().startsWith("Warning DrainSwitchoverImpossible: ")
        .contains("pdx did not answer its latest poll");
    // pdx is back: the same episode may still request, once.
    check(healthy(), false);
    assertThat(annotation()).isEqualTo("pdx");
  }

  @Test
  void aPausedGroupIsHeldOnceThenActsOnResume() {
    cluster.cordon("node-iad", true);

    check(healthy(), true);
    check(healthy(), true);
    assertThat(annotation()).isNull();
    assertThat(effects.events()).singleElement().asString().startsWith("Warning ActionHeld: paused: would switch "
        + "over to pdx");

    check(healthy(), false);
    assertThat(annotation()).isEqualTo("pdx");
  }

  @Test
  void aGroupThatDidNotOptInIsNotLookedAt() {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .edit(g -> {
          MysqlFailoverGroupSpec s = g.getSpec();
          g.setSpec(new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(),
              s.failureThreshold(), s.recoveryThreshold(), s.failoverCooldown(), null, null, null, null, null, null));
          return g;
        });
    cluster.cordon("node-iad", true);
    int before = cluster.requestCount();

    assertThat(check(healthy(), false)).isInstanceOf(DrainSwitchover.Nothing.class);

    assertThat(annotation()).isNull();
    // The two GETs of this test's own reads (the group and the annotation) are all.
    assertThat(cluster.requestCount() - before).as("no pod or node read").isEqualTo(2);
  }
}
