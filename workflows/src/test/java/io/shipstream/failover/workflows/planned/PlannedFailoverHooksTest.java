package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.HookActivities.Body;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.HookSpecs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The webhooks of a planned failover: the pre-hook is asked before the fence and vetoes with
 * anything but 2xx; the post-hook hears the outcome once it is in the status and cannot change it.
 */
class PlannedFailoverHooksTest extends PlannedRigTest {
  private void hooks(String timeout) {
    k8s.spec = HookSpecs.withHooks(PlannedRig.spec(null), "http://ops.example.com/pre?token=s3cret",
        "https://ops.example.com/post", timeout);
    rig.hooks.observe =
        () -> "iad read-only " + mysql.server("iad").readOnly + ", fences " + mysql.callsTo("fence").size();
  }

  /** A failover to pdx with {@link #hooks}, the {@code phase} hook answering {@code status} to every call. */
  private PlannedFailoverStatus requestWithHookAnswering(String phase, int status, String timeout) {
    hooks(timeout);
    rig.hooks.statusByPhase.put(phase, status);
    return rig.request("pdx");
  }

  @Test
  void aPreHookAnswering500VetoesTheFailoverBeforeAnythingIsFenced() {
    PlannedFailoverStatus result = requestWithHookAnswering("pre", 500, "5s");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("PreFailoverHookVetoed");
    assertThat(result.message()).isEqualTo("pre-failover hook http://ops.example.com/pre answered 500: not now; "
        + "nothing was fenced");
    assertThat(rig.hooks.callsIn("pre")).as("three attempts within the timeout").hasSize(3);
    assertThat(mysql.callsTo("fence")).as("nothing fenced").isEmpty();
    assertThat(mysql.server("iad").readOnly).as("the source stays writable").isFalse();
    assertThat(mysql.server("pdx").readOnly).isTrue();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.roles).doesNotContainValue("primary-pdx");
    assertThat(k8s.phases()).doesNotContain("Draining", "Promoting");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("PlannedFailoverRejected");
      assertThat(e.message()).startsWith("PreFailoverHookVetoed: pre-failover hook");
    });
    assertThat(k8s.annotation).as("the request is cleared").isNull();

    Body post = rig.hooks.callsIn("post").get(0).body();
    assertThat(post.outcome()).isEqualTo("Failed");
    assertThat(post.reason()).isEqualTo("PreFailoverHookVetoed");
    assertThat(post.sourceGtidSet()).as("never fenced").isNull();
  }

  @Test
  void aPreHookThatDoesNotAnswerInTimeVetoesToo() {
    hooks("1s");
    rig.hooks.delay = Duration.ofSeconds(3);

    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("PreFailoverHookVetoed");
    assertThat(result.message())
        .startsWith("pre-failover hook http://ops.example.com/pre gave no 2xx answer within 1s");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isFalse();
  }

  @Test
  void anAgreeingPreHookIsAskedBeforeTheFenceAndThePostHookHearsTheOutcome() {
    hooks("5s");

    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(rig.hooks.observed).containsExactly("pre: iad read-only false, fences 0",
        "post: iad read-only true, fences 1");
    Body pre = rig.hooks.callsIn("pre").get(0).body();
    assertThat(pre).isEqualTo(new Body("orders", "shop", "planned", "pre", "iad", "pdx", null, "0-1-97", null, null,
        null, null, null, "mysqlfailovergroup/shop/orders", pre.time()));
    Body post = rig.hooks.callsIn("post").get(0).body();
    assertThat(post.kind()).isEqualTo("planned");
    assertThat(post.phase()).isEqualTo("post");
    assertThat(post.source()).isEqualTo("iad");
    assertThat(post.target()).isEqualTo("pdx");
    assertThat(post.sourceGtidSet()).isEqualTo("0-1-100");
    assertThat(post.targetGtidSet()).isEqualTo("0-1-100");
    assertThat(post.transactionsLost()).isZero();
    assertThat(post.outcome()).isEqualTo("Succeeded");
    assertThat(post.reason()).isNull();
    assertThat(post.message()).startsWith("promoted pdx, 0 transactions lost");
    assertThat(rig.hooks.calls.get(0).url()).isEqualTo("http://ops.example.com/pre?token=s3cret");
    assertThat(rig.hooks.calls.get(0).timeoutMillis()).isEqualTo(5000);
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("HookCalled")).extracting(FakeKubernetes.Event::message)
        .containsExactly("planned pre-failover hook http://ops.example.com/pre answered 200",
            "planned post-failover hook https://ops.example.com/post answered 200");
  }

  @Test
  void aFailingPostHookIsOnlyAWarning() {
    PlannedFailoverStatus result = requestWithHookAnswering("post", 503, "2s");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.status.plannedFailover().phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(rig.hooks.callsIn("post")).hasSize(3);
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("HookFailed");
      assertThat(e.message()).isEqualTo("planned post-failover hook https://ops.example.com/post answered 503: "
          + "not now; the outcome Succeeded stands");
    });
  }

  @Test
  void withoutHooksNoHookIsCalled() {
    assertThat(rig.request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(rig.hooks.calls).isEmpty();
  }
}
