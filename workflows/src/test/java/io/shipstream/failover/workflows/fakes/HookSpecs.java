package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HookSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HooksSpec;

/** A test group's spec with hooks added. */
public final class HookSpecs {
  private HookSpecs() {}

  /** {@code s} with a pre-hook (null: none) and a post-hook (null: none) of the given timeout. */
  public static MysqlFailoverGroupSpec withHooks(MysqlFailoverGroupSpec s, String preUrl, String postUrl,
      String timeout) {
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.emergencyFailover(), s.minSourceSilence(),
        s.semiSync(), new HooksSpec(preUrl == null ? null : new HookSpec(preUrl, timeout, null),
            postUrl == null ? null : new HookSpec(postUrl, timeout, null)));
  }
}
