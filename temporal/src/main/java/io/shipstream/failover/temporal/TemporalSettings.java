package io.shipstream.failover.temporal;

import io.shipstream.failover.runtime.ConfigReader;
import io.shipstream.failover.runtime.Setting;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a process finds Temporal and how it authenticates: plain text, server TLS, mutual TLS, or
 * a Temporal Cloud API key. Read from the same variables in every process.
 *
 * @param address {@code host:port} of the Temporal frontend, or a gRPC target URI
 * @param tls whether to connect with TLS; implied by a client certificate, a CA or an API key
 * @param tlsCert PEM client certificate for mTLS, with {@code tlsKey} (PKCS#8 PEM)
 * @param tlsCa PEM CA bundle that signs the server certificate, when not a public CA
 * @param apiKey Temporal Cloud API key; never logged
 */
public record TemporalSettings(
    String address,
    String namespace,
    boolean tls,
    Path tlsCert,
    Path tlsKey,
    Path tlsCa,
    String apiKey) {

  public static final String TEMPORAL_ADDRESS = "TEMPORAL_ADDRESS";
  public static final String TEMPORAL_NAMESPACE = "TEMPORAL_NAMESPACE";
  public static final String TEMPORAL_TLS = "TEMPORAL_TLS";
  public static final String TEMPORAL_TLS_CERT = "TEMPORAL_TLS_CERT";
  public static final String TEMPORAL_TLS_KEY = "TEMPORAL_TLS_KEY";
  public static final String TEMPORAL_TLS_CA = "TEMPORAL_TLS_CA";
  public static final String TEMPORAL_API_KEY = "TEMPORAL_API_KEY";

  /** Address and namespace first: they are what most deployments set. */
  public static final List<Setting> ADDRESS_SETTINGS = List.of(
      Setting.of(TEMPORAL_ADDRESS, "127.0.0.1:7233"),
      Setting.of(TEMPORAL_NAMESPACE, "default"));

  public static final List<Setting> SECURITY_SETTINGS = List.of(
      Setting.of(TEMPORAL_TLS, null),
      Setting.of(TEMPORAL_TLS_CERT, null),
      Setting.of(TEMPORAL_TLS_KEY, null),
      Setting.of(TEMPORAL_TLS_CA, null),
      // A flag is visible in ps and in the pod spec, so the key comes from a Secret only.
      Setting.envOnly(TEMPORAL_API_KEY, null, "from a Secret (a flag is visible in ps and in the pod spec)"));

  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9._-]+):(\\d{1,5})");

  /** A local Temporal without TLS, as the dev server and the tests run it. */
  public static TemporalSettings local(String address, String namespace) {
    return new TemporalSettings(address, namespace, false, null, null, null, null);
  }

  /** Reads and validates {@link #ADDRESS_SETTINGS} and {@link #SECURITY_SETTINGS}; errors go to the reader. */
  public static TemporalSettings read(ConfigReader r) {
    String address = r.required(TEMPORAL_ADDRESS);
    if (address != null && !address.contains("://") && !validHostPort(address)) {
      r.error(TEMPORAL_ADDRESS + "=" + address + ": expected host:port (e.g. temporal-frontend:7233)"
          + " or a gRPC target such as dns:///temporal-frontend:7233");
    }
    String namespace = r.required(TEMPORAL_NAMESPACE);
    if (namespace != null && namespace.chars().anyMatch(Character::isWhitespace)) {
      r.error(TEMPORAL_NAMESPACE + "='" + namespace + "': a namespace has no spaces");
    }
    Path cert = r.file(TEMPORAL_TLS_CERT);
    Path key = r.file(TEMPORAL_TLS_KEY);
    Path ca = r.file(TEMPORAL_TLS_CA);
    String apiKey = r.get(TEMPORAL_API_KEY);
    if ((cert == null) != (key == null)) {
      r.error(TEMPORAL_TLS_CERT + " and " + TEMPORAL_TLS_KEY + " go together: mTLS needs both the"
          + " certificate and its private key");
    }
    if (apiKey != null && cert != null) {
      r.error(TEMPORAL_API_KEY + " and " + TEMPORAL_TLS_CERT + " are both set: authenticate with one of them");
    }
    boolean impliedTls = cert != null || ca != null || apiKey != null;
    Boolean asked = r.bool(TEMPORAL_TLS);
    if (Boolean.FALSE.equals(asked) && impliedTls) {
      r.error(TEMPORAL_TLS + "=false contradicts " + TEMPORAL_TLS_CERT + "/" + TEMPORAL_TLS_CA + "/"
          + TEMPORAL_API_KEY + ", which need TLS");
    }
    boolean tls = asked != null ? asked : impliedTls;
    return new TemporalSettings(address, namespace, tls, cert, key, ca, apiKey);
  }

  private static boolean validHostPort(String address) {
    var m = HOST_PORT.matcher(address);
    if (!m.matches()) {
      return false;
    }
    int port = Integer.parseInt(m.group(2));
    return port >= 1 && port <= 65535;
  }

  public boolean mutualTls() {
    return tlsCert != null;
  }

  /** The API key is replaced by a mask: this string goes to startup log lines. */
  @Override
  public String toString() {
    return "TemporalSettings[address=" + address + ", namespace=" + namespace + ", tls=" + tls + ", tlsCert=" + tlsCert
        + ", tlsKey=" + tlsKey + ", tlsCa=" + tlsCa + ", apiKey=" + (apiKey == null ? "unset" : "****") + "]";
  }
}
