package io.shipstream.failover.workflows.fakes;

import org.junit.jupiter.api.AutoClose;

/**
 * What every workflow test starts from: a rig of its own (JUnit makes a new instance per test
 * method, and closes the rig after it), and its fakes by name.
 */
public abstract class RigTest<R extends FailoverRig> {
  @AutoClose
  protected final R rig = newRig();
  protected final FakeMysql mysql = rig.mysql;
  protected final FakeKubernetes k8s = rig.k8s;

  /** Called once per test instance, before any field of the subclass is set. */
  protected abstract R newRig();
}
