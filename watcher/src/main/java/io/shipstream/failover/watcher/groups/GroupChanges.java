package io.shipstream.failover.watcher.groups;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;

/**
 * What the watcher's parts take from the informer: the group, by name, each time its resource was
 * added or changed (status writes included), and when it was deleted. Each part reads the resource
 * it acts on from the cache when it gets to it, so the copy the informer handed over is not kept.
 */
public interface GroupChanges extends ResourceEventHandler<MysqlFailoverGroup> {
  /** The group was added or changed. */
  void changed(GroupRef ref);

  /** The group's resource is gone. */
  void deleted(GroupRef ref);

  @Override
  default void onAdd(MysqlFailoverGroup group) {
    changed(ref(group));
  }

  @Override
  default void onUpdate(MysqlFailoverGroup before, MysqlFailoverGroup after) {
    changed(ref(after));
  }

  @Override
  default void onDelete(MysqlFailoverGroup group, boolean finalStateUnknown) {
    deleted(ref(group));
  }

  static GroupRef ref(MysqlFailoverGroup group) {
    return new GroupRef(group.getMetadata().getNamespace(), group.getMetadata().getName());
  }
}
