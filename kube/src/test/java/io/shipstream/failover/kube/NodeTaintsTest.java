package io.shipstream.failover.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.shipstream.failover.model.GroupRef;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node's taint is first patched from the node as it was listed, without reading it again: a
 * node changed since that listing must not lose the change, nor miss our taint.
 */
class NodeTaintsTest {
  private static final String KEY = NodeTaints.taintKey(new GroupRef("shop", "orders"));

  private KubernetesMockServer server;
  private KubernetesClient client;

  @BeforeEach
  void startMockApiServer() {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
  }

  @AfterEach
  void stopMockApiServer() {
    client.close();
    server.destroy();
  }

  @Test
  void aNodeChangedSinceItWasListedIsReadAgainAndKeepsTheOtherChange() throws Exception {
    // The CRUD mock cannot answer a failed JSON-patch test (it never responds), so this case runs
    // on an expectations mock: the API server refuses the first patch as a real one does (422),
    // then the node as it is now is read and patched with the other taint kept.
    KubernetesMockServer scripted = new KubernetesMockServer(false);
    scripted.init(InetAddress.getLoopbackAddress(), 0);
    try (KubernetesClient c = scripted.createClient()) {
      Node listed = new NodeBuilder().withNewMetadata().withName("n1").withResourceVersion("1").endMetadata()
          .withNewSpec().endSpec().build();
      Taint theirs = new TaintBuilder().withKey("other").withValue("x").withEffect("NoSchedule").build();
      Node now = new NodeBuilder(listed).editMetadata().withResourceVersion("2").endMetadata().editSpec()
          .withTaints(theirs).endSpec().build();
      scripted.expect().patch().withPath("/api/v1/nodes/n1").andReturn(422, new io.fabric8.kubernetes.api.model
          .StatusBuilder().withCode(422).withMessage("test operation failed").build()).once();
      scripted.expect().get().withPath("/api/v1/nodes/n1").andReturn(200, now).once();
      scripted.expect().patch().withPath("/api/v1/nodes/n1").andReturn(200, now).once();

      boolean changed = new NodeTaints(c).reconcileFrom(listed, KEY, true);

      assertThat(changed).isTrue();
      assertThat(scripted.getRequestCount()).isEqualTo(3);
      scripted.takeRequest();
      scripted.takeRequest();
      String secondPatch = scripted.takeRequest().getBody().readUtf8();
      assertThat(secondPatch).contains("\"op\":\"test\"", "\"other\"", KEY);
    } finally {
      scripted.destroy();
    }
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
