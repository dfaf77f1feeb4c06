package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Writes a group exactly as the mock API server stored it, status included, into the directory the
 * system property {@value #DIR_PROPERTY} names (the ITs set it; the playground does not). The mock
 * keeps every field it is sent, where a real API server prunes what the CRD does not declare, so the
 * ITs check these files against the CRD. Read as a generic resource: our records would drop exactly
 * the undeclared fields the check is looking for.
 */
final class StoredGroupDump {
  static final String DIR_PROPERTY = "failover.storedGroupsDir";

  private StoredGroupDump() {}

  /** The file written, or empty when no directory is configured or the group is gone. */
  static Optional<Path> write(KubernetesClient client, GroupRef group) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null || dir.isBlank()) {
      return Optional.empty();
    }
    GenericKubernetesResource stored = client
        .genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(group.namespace()).withName(group.name()).get();
    if (stored == null) {
      return Optional.empty();
    }
    try {
      Path directory = Files.createDirectories(Path.of(dir));
      Path file = Files.createTempFile(directory, group.namespace() + "-" + group.name() + "-", ".json");
      Files.writeString(file, Serialization.asJson(stored), StandardCharsets.UTF_8);
      return Optional.of(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
