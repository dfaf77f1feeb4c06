package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import java.util.Optional;

/**
 * The owner reference that the objects a group creates (its Services, its DNSEndpoint) carry, so
 * that deleting the group deletes them; empty when the group cannot be read, and the object is
 * then created without one.
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
