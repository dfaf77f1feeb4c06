package io.shipstream.failover.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.testsupport.MockCluster;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node's taint is first patched from the node as it was listed, without reading it again: a
 * node changed since that listing must not lose the change, nor miss our taint. The mock answers a
 * failed JSON-patch test as an API server does ({@link MockCluster}), so the second attempt is the
 * real one.
 */
class NodeTaintsTest {
  private static final String KEY = NodeTaints.taintKey(new GroupRef("shop", "orders"));

  private MockCluster cluster;
  private KubernetesClient client;

  @BeforeEach
  void startMockApiServer() {
    cluster = MockCluster.start();
    client = cluster.client();
  }

  @AfterEach
  void stopMockApiServer() {
    cluster.close();
  }

  @Test
  void aNodeChangedSinceItWasListedIsReadAgainAndKeepsTheOtherChange() {
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().withNewSpec().endSpec()
        .build()).create();
    Node listed = client.nodes().withName("n1").get();
    Taint theirs = new TaintBuilder().withKey("other").withValue("x").withEffect("NoSchedule").build();
    Node changedMeanwhile = new NodeBuilder(client.nodes().withName("n1").get()).editSpec().withTaints(theirs).endSpec()
        .build();
    client.nodes().resource(changedMeanwhile).update();

    boolean changed = new NodeTaints(client).reconcileFrom(listed, KEY, true);

    assertThat(changed).isTrue();
    List<Taint> taints = client.nodes().withName("n1").get().getSpec().getTaints();
    assertThat(taints).extracting(Taint::getKey).containsExactly("other", KEY);
  }

  @Test
  void aNodeUnchangedSinceItWasListedIsPatchedFromTheListing() {
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().withNewSpec()
        .withTaints(new TaintBuilder().withKey(KEY).withValue(NodeTaints.VALUE).withEffect(NodeTaints.EFFECT).build())
        .endSpec().build()).create();
    Node listed = client.nodes().withName("n1").get();

    boolean changed = new NodeTaints(client).reconcileFrom(listed, KEY, false);

    assertThat(changed).isTrue();
    Node after = client.nodes().withName("n1").get();
    assertThat(after.getSpec().getTaints() == null || after.getSpec().getTaints().isEmpty()).isTrue();
  }
}
