package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The monitor's login to each group's servers: keys {@code username} and {@code password} of the
 * group's credentials Secret. Kept for a short while, because every site of a group is polled every
 * {@code pollInterval} and reading the Secret that often would load the API server for nothing; a
 * rotated password is picked up after the TTL.
 */
public final class SecretLogins {
  static final Duration TTL = Duration.ofSeconds(30);

  /** A login. Its {@code toString} hides the password, so it can never reach a log line. */
  public record Login(String username, String password) {
    @Override
    public String toString() {
      return "Login[" + username + ", password hidden]";
    }
  }

  private record Cached(Login login, Instant expires) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  public SecretLogins(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * The login for the group, read from its Secret unless a fresh copy is cached.
   *
   * @throws IllegalStateException naming what is missing (never a value)
   */
  public Login login(GroupRef group, String secretName) {
    if (secretName == null || secretName.isBlank()) {
      throw new IllegalStateException("group " + group + " names no credentials Secret");
    }
    String key = group.namespace() + "/" + secretName;
    Instant now = clock.instant();
    Cached cached = cache.get(key);
    if (cached != null && now.isBefore(cached.expires())) {
      return cached.login();
    }
    Secret secret = client.secrets().inNamespace(group.namespace()).withName(secretName).get();
    if (secret == null) {
      throw new IllegalStateException("Secret " + key + " not found");
    }
    String username = value(secret, "username");
    String password = value(secret, "password");
    if (username == null || password == null) {
      throw new IllegalStateException("Secret " + key + " lacks the key " + (username == null ? "username" : "password"));
    }
    Login login = new Login(username, password);
    cache.put(key, new Cached(login, now.plus(TTL)));
    return login;
  }

  /** A key from {@code data} (base64, what the API server returns) or, failing that, {@code stringData}. */
  private static String value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return new String(Base64.getDecoder().decode(secret.getData().get(key).strip()), StandardCharsets.UTF_8);
    }
    return secret.getStringData() == null ? null : secret.getStringData().get(key);
  }
}
