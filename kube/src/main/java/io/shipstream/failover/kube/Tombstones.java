package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The explicit word that a group was deleted: a ConfigMap {@code <group>-failover-tombstone} in the
 * group's namespace, written by the watcher's finalizer just before it lets the group go, with no
 * owner, so it outlives the group. The sidecars learn of the deletion only from it (through the
 * watcher's {@code /active-site}), never from a 404: a broken informer or an unwatched namespace
 * gives a 404 too, and a sidecar that took that for a deletion would stop guarding a live group.
 * It stays until a group of that name is created again (the finalizer removes it when it adopts
 * the new group) or someone deletes it.
 */
public final class Tombstones {
  private static final Logger log = LoggerFactory.getLogger(Tombstones.class);
  public static final String SUFFIX = "-failover-tombstone";
  /** Marks the ConfigMap as a tombstone, beside {@code shipstream.io/group=<group>}. */
  public static final String LABEL = "shipstream.io/tombstone";
  private static final int MAX_NAME = 253;

  /** A deleted group: its uid and when its finalizer ran. */
  public record Tombstone(GroupRef group, String uid, Instant deletedAt) {}

  private final KubernetesClient client;

  public Tombstones(KubernetesClient client) {
    this.client = client;
  }

  /** The ConfigMap's name; a group name too long for the suffix is cut and told apart by a hash of it. */
  public static String name(GroupRef group) {
    String plain = group.name() + SUFFIX;
    if (plain.length() <= MAX_NAME) {
      return plain;
    }
    String hash = HexFormat.of().formatHex(sha256(group.name())).substring(0, 8);
    String head = group.name().substring(0, MAX_NAME - SUFFIX.length() - hash.length() - 1).replaceAll("[.-]+$", "");
    return head + "-" + hash + SUFFIX;
  }

  /** Writes (or rewrites) the tombstone of the group whose object had {@code uid}. */
  public void write(GroupRef group, String uid, Instant deletedAt) {
    Map<String, String> data = Map.of("namespace", group.namespace(), "group", group.name(),
        "uid", uid == null ? "" : uid, "deletedAt", deletedAt.toString());
    String name = name(group);
    var configMaps = client.configMaps().inNamespace(group.namespace());
    try {
      configMaps.resource(new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(group.namespace())
          .addToLabels(SiteRoles.GROUP_LABEL, group.name()).addToLabels(LABEL, "true").endMetadata()
          .withData(data).build()).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Left by an earlier pass of this finalizer (a watcher restarted half-way) or an older group
      // of that name: this deletion's word replaces it.
      configMaps.resource(JsonPatch.target(new ConfigMap(), group.namespace(), name)).patch(
          PatchContext.of(PatchType.JSON),
          client.getKubernetesSerialization().asJson(new JsonPatch().add("/data", data).operations()));
    }
    log.info("Wrote the tombstone {}/{} of {} (uid {}): its sidecars hold their servers as they are", group.namespace(),
        name, group, uid);
  }

  /** The group's tombstone, if one was written; empty when there is none or it cannot be read as one. */
  public Optional<Tombstone> read(GroupRef group) {
    ConfigMap map = client.configMaps().inNamespace(group.namespace()).withName(name(group)).get();
    if (map == null || map.getData() == null || !group.name().equals(map.getData().get("group"))) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Tombstone(group, map.getData().get("uid"), Instant.parse(map.getData().get("deletedAt"))));
    } catch (DateTimeParseException | NullPointerException e) {
      log.warn("ConfigMap {}/{} is no tombstone this watcher can read: {}", group.namespace(), name(group),
          e.toString());
      return Optional.empty();
    }
  }

  /** Removes the group's tombstone, when a group of that name exists again; whether there was one. */
  public boolean forget(GroupRef group) {
    try {
      boolean deleted = !client.configMaps().inNamespace(group.namespace()).withName(name(group)).delete().isEmpty();
      if (deleted) {
        log.info("Removed the tombstone of an earlier {}: a group of that name exists again", group);
      }
      return deleted;
    } catch (KubernetesClientException e) {
      if (Conflicts.isNotFound(e)) {
        return false;
      }
      throw e;
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
