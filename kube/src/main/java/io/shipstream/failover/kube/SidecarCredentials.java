package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each group's sidecar credential lives: the Secret key its {@code
 * spec.sidecar.tokenSecretRef} names, in the group's namespace (key {@code token} by default), the
 * same Secret its sidecars mount as AUTH_TOKEN_FILE. The watcher checks a sidecar's {@code
 * /active-site} request against it, and the watcher and the worker present it to that group's
 * sidecars; nothing else holds it, so one group's credential opens nothing of another's. A group
 * that names none falls back to the install's shared token ({@link Shared}) and is Degraded until
 * it names one. A value is kept {@link #TTL} (every sidecar asks every few seconds): a rotated
 * credential is used within that, and a rotation that lists the new token first and keeps the old
 * one as a second line opens no window where one side refuses the other.
 */
public final class SidecarCredentials {
  public static final Duration TTL = Duration.ofSeconds(5);
  public static final String DEFAULT_KEY = MysqlFailoverGroupSpec.SecretKeyRef.DEFAULT_KEY;

  /** What a group's requests are checked against and sent with. */
  public sealed interface Credential permits Own, Shared, Unavailable {}

  /** The group's own: the Secret's value (one token, or several one a line). */
  public record Own(String secret, String value) implements Credential {
    @Override
    public String toString() {
      return "Own[" + secret + ", redacted]";
    }
  }

  /** The group names no credential: the install's shared token, as before per-group credentials. */
  public record Shared() implements Credential {}

  /** The group names a credential that cannot be read now (no Secret, no key, no access): nothing is accepted. */
  public record Unavailable(String secret, String reason) implements Credential {}

  /** Thrown by a caller that needs the credential of a group whose credential is {@link Unavailable}. */
  public static final class UnavailableException extends RuntimeException {
    public UnavailableException(String reason) {
      super(reason);
    }
  }

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(Credential credential, Instant expires) {}

  public SidecarCredentials(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * The credential of {@code group}, read with its spec from the API server (the worker has no
   * cache of the groups); kept {@link #TTL}, as the status polls of a failover come five a second.
   */
  public Credential ofGroup(GroupRef group) {
    Instant now = clock.instant();
    Cached cached = cache.get(group.toString());
    if (cached != null && now.isBefore(cached.expires())) {
      return cached.credential();
    }
    MysqlFailoverGroup resource;
    try {
      resource = client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name()).get();
    } catch (KubernetesClientException e) {
      return new Unavailable(group.toString(), "group " + group + " cannot be read: HTTP " + e.getCode());
    }
    Credential credential = of(group, resource == null ? null : resource.getSpec());
    cache.put(group.toString(), new Cached(credential, now.plus(TTL)));
    return credential;
  }

  /** The credential of {@code group}, whose spec is {@code spec} (null: it names none). */
  public Credential of(GroupRef group, MysqlFailoverGroupSpec spec) {
    MysqlFailoverGroupSpec.SecretKeyRef ref = spec == null || spec.sidecar() == null ? null
        : spec.sidecar().tokenSecretRef();
    if (ref == null || ref.name() == null || ref.name().isBlank()) {
      return new Shared();
    }
    String key = ref.key() == null || ref.key().isBlank() ? DEFAULT_KEY : ref.key();
    String where = group.namespace() + "/" + ref.name();
    String cacheKey = where + "#" + key;
    Instant now = clock.instant();
    Cached cached = cache.get(cacheKey);
    if (cached != null && now.isBefore(cached.expires())) {
      return cached.credential();
    }
    Credential read = read(where, group.namespace(), ref.name(), key);
    cache.put(cacheKey, new Cached(read, now.plus(TTL)));
    return read;
  }

  private Credential read(String where, String namespace, String name, String key) {
    Secret secret;
    try {
      secret = client.secrets().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      return new Unavailable(where, "Secret " + where + " cannot be read: HTTP " + e.getCode());
    }
    if (secret == null) {
      return new Unavailable(where, "Secret " + where + " does not exist");
    }
    String value = null;
    if (secret.getData() != null && secret.getData().get(key) != null) {
      value = new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
    } else if (secret.getStringData() != null) {
      value = secret.getStringData().get(key);
    }
    if (value == null || value.isBlank()) {
      return new Unavailable(where, "Secret " + where + " has no key '" + key + "' with a token");
    }
    return new Own(where, value);
  }
}
