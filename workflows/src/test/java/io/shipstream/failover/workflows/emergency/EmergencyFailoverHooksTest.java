package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.workflows.activities.HookActivities.Body;
import io.shipstream.failover.workflows.fakes.HookSpecs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The webhooks of an emergency failover: the pre-hook goes out beside the fence, once, bounded by
 * about a second, and can never hold up or stop the failover; the post-hook hears the outcome.
 */
class EmergencyFailoverHooksTest extends EmergencyRigTest {
  private void hooks(String timeout) {
    k8s.spec = HookSpecs.withHooks(EmergencyRig.spec(), "http://ops.example.com/pre", "http://ops.example.com/post",
        timeout);
  }

  @Test
  void aRefusingPreHookIsAWarningAndTheFailoverGoesOn() {
    hooks("10s");
    rig.hooks.statusByPhase.put("pre", 500);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(rig.hooks.callsIn("pre")).as("one attempt, no retry").hasSize(1);
    assertThat(rig.hooks.callsIn("pre").get(0).timeoutMillis()).as("at most about a second").isEqualTo(1000);
    assertThat(result.message()).contains("emergency pre-failover hook http://ops.example.com/pre answered 500: "
        + "not now; the failover went on");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("HookFailed");
    });
  }

  @Test
  void aHangingPreHookCostsTheFailoverNothingAndThePostHookHearsTheLoss() {
    hooks("10s");
    rig.hooks.delay = Duration.ofSeconds(3);
    rig.hooks.statusByPhase.put("post", 200);
    mysql.server("pdx").seqno = 97;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("gave no 2xx answer within 1s");
    Body pre = rig.hooks.callsIn("pre").get(0).body();
    assertThat(pre.kind()).isEqualTo("emergency");
    assertThat(pre.source()).isEqualTo("iad");
    assertThat(pre.target()).isEqualTo("pdx");
    assertThat(pre.sourceGtidSet()).isEqualTo("0-1-100");
    Body post = rig.hooks.callsIn("post").get(0).body();
    assertThat(post.outcome()).isEqualTo("Succeeded");
    assertThat(post.transactionsLost()).isEqualTo(3);
    assertThat(post.lostGtidSet()).isEqualTo("0-1-98..100");
    assertThat(post.targetGtidSet()).isEqualTo("0-1-97");
  }
}
