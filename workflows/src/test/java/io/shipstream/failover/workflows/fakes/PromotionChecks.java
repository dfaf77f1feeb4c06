package io.shipstream.failover.workflows.fakes;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.SiteSpec;

/** What a user sees after a failover of either kind moved the primary: the servers, the routing, the record. */
public final class PromotionChecks {
  private PromotionChecks() {}

  /**
   * {@code to} is the one writable primary and no longer replicates, {@code from} is labelled
   * replica and {@code to} primary, DNS points at {@code to}'s load balancer, {@code to}'s nodes are
   * free of the taint, and the status names {@code to} active with the promotion point.
   */
  public static void assertMoved(FakeMysql mysql, FakeKubernetes k8s, String from, String to, String promotionGtid) {
    assertThat(mysql.server(to).readOnly).as("new primary writable").isFalse();
    assertThat(mysql.server(to).replicating).isFalse();
    assertThat(mysql.callsTo("promote")).containsExactly("promote " + to);
    assertThat(k8s.roles).containsEntry(from, "replica").containsEntry(to, "primary");
    assertThat(k8s.dnsTarget).isEqualTo(k8s.spec.sites().stream().filter(s -> s.name().equals(to))
        .map(SiteSpec::lbIP).findFirst().orElseThrow());
    assertThat(k8s.activeTaintFree).isEqualTo(to);
    assertThat(k8s.status.activeSite()).isEqualTo(to);
    assertThat(k8s.status.lastFailover()).isNotNull();
    assertThat(k8s.status.lastFailoverTarget()).isEqualTo(to);
    assertThat(k8s.status.promotionGtidExecuted()).isEqualTo(promotionGtid);
  }
}
