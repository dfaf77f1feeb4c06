package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.workflows.fakes.FakeSidecar;
import io.shipstream.failover.workflows.fakes.RigTest;

/** What every emergency-failover workflow test starts from: an {@link EmergencyRig} and its fakes by name. */
abstract class EmergencyRigTest extends RigTest<EmergencyRig> {
  final FakeSidecar sidecar = rig.sidecar;

  @Override
  protected EmergencyRig newRig() {
    return new EmergencyRig();
  }
}
