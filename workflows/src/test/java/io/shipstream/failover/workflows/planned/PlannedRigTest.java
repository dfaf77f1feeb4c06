package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.workflows.fakes.FakeDragonfly;
import io.shipstream.failover.workflows.fakes.RigTest;

/** What every planned-failover workflow test starts from: an {@link PlannedRig} and its fakes by name. */
abstract class PlannedRigTest extends RigTest<PlannedRig> {
  final FakeDragonfly stores = rig.stores;

  @Override
  protected PlannedRig newRig() {
    return new PlannedRig();
  }
}
