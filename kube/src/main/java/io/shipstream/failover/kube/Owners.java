package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import java.util.Optional;

/**
 * The owner reference that the objects a group creates (its Services, its DNSEndpoint) carry, which
 * says which group they belong to; empty when the group cannot be read, and the object is then
 * created without one. Deleting the group does not delete them: the watcher's finalizer takes this
 * reference off first ({@link RoutingOrphans}), so the application keeps its endpoint.
 */
@FunctionalInterface
public interface Owners {
  Optional<OwnerReference> of(GroupRef group);

  /** The reference to {@code cr}. */
  static OwnerReference reference(MysqlFailoverGroup cr) {
    // blockOwnerDeletion stays unset: setting it needs update rights on the group's finalizers
    // wherever the OwnerReferencesPermissionEnforcement admission plugin runs.
    return new OwnerReferenceBuilder()
        .withApiVersion(MysqlFailoverGroup.API_VERSION)
        .withKind("MysqlFailoverGroup")
        .withName(cr.getMetadata().getName())
        .withUid(cr.getMetadata().getUid())
        .build();
  }
}
