package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.FakeSidecar;
import org.junit.jupiter.api.AutoClose;

/**
 * What every emergency-failover workflow test starts from: an {@link EmergencyRig} of its own
 * (JUnit makes a new instance per test method, and closes the rig after it), and its fakes by name.
 */
abstract class EmergencyRigTest {
  @AutoClose
  final EmergencyRig rig = new EmergencyRig();
  final FakeMysql mysql = rig.mysql;
  final FakeKubernetes k8s = rig.k8s;
  final FakeSidecar sidecar = rig.sidecar;
}
