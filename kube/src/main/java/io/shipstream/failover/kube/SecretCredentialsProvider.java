package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.tls.TlsConfig;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsProvider;
import io.shipstream.failover.mysql.CredentialsUnavailableException;
import io.shipstream.failover.mysql.SessionTls;
import io.shipstream.failover.mysql.TlsUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads the logins from a Secret in the group's namespace: keys {@code username} and {@code
 * password}, and optionally {@code replicationUsername} / {@code replicationPassword} (default: the
 * same account). Values are kept for a short while, because a failover calls several activities in
 * a row and the watcher polls every site of a group every {@code pollInterval}, and the Secret does
 * not change between them; a rotated password is picked up after the TTL, and so are a rotated CA
 * or client certificate of the group's {@code spec.tls} Secret, read with them. The one reader of the
 * group's Secret: the worker's activities and the watcher's topology monitor share it.
 */
public final class SecretCredentialsProvider implements CredentialsProvider {
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final Clock clock;
  private final Duration ttl;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(Credentials credentials, Instant expires) {}

  public SecretCredentialsProvider(KubernetesClient client, Clock clock) {
    this(client, clock, DEFAULT_TTL);
  }

  public SecretCredentialsProvider(KubernetesClient client, Clock clock, Duration ttl) {
    this.client = client;
    this.clock = clock;
    this.ttl = ttl;
  }

  @Override
  public Credentials credentials(GroupRef group, String secretName) {
    if (secretName == null || secretName.isBlank()) {
      throw new CredentialsUnavailableException("group " + group + " names no credentials Secret");
    }
    // Per group: two groups may share a credentials Secret but not their TLS settings.
    String key = group.namespace() + "/" + group.name() + "/" + secretName;
    Instant now = clock.instant();
    Cached cached = cache.get(key);
    if (cached != null && now.isBefore(cached.expires())) {
      return cached.credentials();
    }
    Credentials credentials = read(group.namespace(), secretName);
    credentials = withTls(group, credentials);
    cache.put(key, new Cached(credentials, now.plus(ttl)));
    return credentials;
  }

  /**
   * The logins with the group's {@code spec.tls}: the mode of its sessions with the CA (and client
   * certificate) from the Secret it names, and the replication channels' settings. A group that
   * cannot be read, or whose TLS Secret cannot, gets no logins at all rather than weaker ones: no
   * session is opened, no channel pointed, on less than the group asks. A group that is gone has
   * nothing configured (its last workflow may still finish its steps).
   */
  private Credentials withTls(GroupRef group, Credentials credentials) {
    MysqlFailoverGroup resource;
    try {
      resource = client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name()).get();
    } catch (KubernetesClientException e) {
      throw new TlsUnavailableException("cannot read group " + group + " for its TLS settings: HTTP "
          + e.getCode() + " " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // A spec this version cannot deserialize: refuse rather than run without its TLS.
      throw new TlsUnavailableException("cannot read group " + group + " for its TLS settings: " + e, e);
    }
    if (resource == null || resource.getSpec() == null || resource.getSpec().tls() == null) {
      return credentials;
    }
    List<String> problems = new ArrayList<>();
    TlsConfig tls = TlsConfig.resolve(resource.getSpec().tls(), resource.getSpec().sites() == null ? List.of()
        : resource.getSpec().sites(), problems);
    if (!problems.isEmpty()) {
      throw new TlsUnavailableException("group " + group + ": " + String.join("; ", problems));
    }
    SessionTls session = SessionTls.NONE;
    if (tls.sessionMode().encrypted()) {
      String ca = null;
      String cert = null;
      String key = null;
      if (tls.sessionSecret() != null) {
        Secret secret;
        try {
          secret = secret(group.namespace(), tls.sessionSecret());
        } catch (CredentialsUnavailableException e) {
          throw new TlsUnavailableException("tls.sessions.secretRef: " + e.getMessage(), e);
        }
        ca = value(secret, "ca.crt");
        cert = value(secret, "tls.crt");
        key = value(secret, "tls.key");
        if (tls.sessionMode().verifiesCa() && ca == null) {
          throw new TlsUnavailableException("Secret " + group.namespace() + "/" + tls.sessionSecret()
              + " lacks the key ca.crt, which tls.sessions.mode " + tls.sessionMode().display() + " needs");
        }
      }
      try {
        session = new SessionTls(tls.sessionMode(), ca, cert, key);
      } catch (IllegalArgumentException e) {
        throw new TlsUnavailableException("Secret " + group.namespace() + "/" + tls.sessionSecret() + ": "
            + e.getMessage(), e);
      }
    }
    return credentials.withTls(session, tls);
  }

  private Secret secret(String namespace, String name) {
    Secret secret;
    try {
      secret = client.secrets().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      throw new CredentialsUnavailableException(
          "cannot read Secret " + namespace + "/" + name + ": HTTP " + e.getCode() + " " + e.getMessage(), e);
    }
    if (secret == null) {
      throw new CredentialsUnavailableException("Secret " + namespace + "/" + name + " not found");
    }
    return secret;
  }

  private Credentials read(String namespace, String name) {
    Secret secret = secret(namespace, name);
    String where = "Secret " + namespace + "/" + name;
    String username = value(secret, "username");
    String password = value(secret, "password");
    if (username == null || password == null) {
      throw new CredentialsUnavailableException(
          where + " lacks the key " + (username == null ? "username" : "password"));
    }
    return new Credentials(username, password, value(secret, "replicationUsername"),
        value(secret, "replicationPassword"));
  }

  /**
   * A key from {@code data} (base64, what the API server returns) or, failing that, {@code
   * stringData}; null when the Secret has neither. The one decoding of a Secret's value: the hook
   * activity reads its bearer token with it too.
   */
  public static String value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return new String(Base64.getDecoder().decode(secret.getData().get(key).strip()), StandardCharsets.UTF_8);
    }
    if (secret.getStringData() != null) {
      return secret.getStringData().get(key);
    }
    return null;
  }
}
