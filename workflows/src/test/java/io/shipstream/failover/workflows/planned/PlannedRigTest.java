package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.workflows.fakes.FakeDragonfly;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import org.junit.jupiter.api.AutoClose;

/**
 * What every planned-failover workflow test starts from: a {@link PlannedRig} of its own (JUnit
 * makes a new instance per test method, and closes the rig after it), and its fakes by name.
 */
abstract class PlannedRigTest {
  @AutoClose
  final PlannedRig rig = new PlannedRig();
  final FakeMysql mysql = rig.mysql;
  final FakeKubernetes k8s = rig.k8s;
  final FakeDragonfly stores = rig.stores;
}
