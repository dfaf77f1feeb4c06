package io.shipstream.failover.runtime;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The token the sidecars of a group share, and which the watcher and the worker hold too: the
 * sidecars present it to the watcher's {@code /active-site}, and the worker presents it to the
 * sidecars' {@code POST /tick} and {@code GET /status}. Both processes read it the same way, from
 * the Secret the sidecars get it from: AUTH_TOKEN_FILE (a mounted Secret, preferred) or AUTH_TOKEN
 * (environment only). The sidecars check it on their peer and status endpoints and present it to
 * each other and to the watcher. Compared through digests so the time a check takes says nothing
 * about the value; {@link #toString} never shows it, and only {@link #authorization} hands it out,
 * as the header a request carries.
 */
public final class SharedToken {
  public static final String AUTH_TOKEN_FILE = "AUTH_TOKEN_FILE";
  public static final String AUTH_TOKEN = "AUTH_TOKEN";
  /** The two settings a process that holds the token declares. */
  public static final List<Setting> SETTINGS = List.of(
      Setting.of(AUTH_TOKEN_FILE, null),
      Setting.envOnly(AUTH_TOKEN, null, "from a Secret (a flag is visible in ps and in the pod spec)"));
  private static final String PREFIX = "Bearer ";

  private final String value;
  private final byte[] digest;

  private SharedToken(String value) {
    this.value = value;
    this.digest = sha256(value);
  }

  public static SharedToken of(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("the shared sidecar token must not be empty");
    }
    return new SharedToken(value.strip());
  }

  /**
   * The token of AUTH_TOKEN_FILE, else of AUTH_TOKEN, or null when neither is set (the caller
   * decides whether it may run without one). A file that cannot be read or holds nothing is an
   * error of {@code r} naming the file, never showing the value.
   */
  public static SharedToken read(ConfigReader r) {
    String value = r.secret(AUTH_TOKEN);
    if (value == null || !value.isBlank()) {
      return value == null ? null : of(value);
    }
    String file = r.get(AUTH_TOKEN_FILE);
    if (file != null && !file.isBlank()) {
      r.error(AUTH_TOKEN_FILE + " " + file.strip() + " holds no token");
    }
    return null;
  }

  /** Whether neither setting names a token: nothing to read, rather than a file that failed. */
  public static boolean unset(ConfigReader r) {
    String file = r.get(AUTH_TOKEN_FILE);
    return r.get(AUTH_TOKEN) == null && (file == null || file.isBlank());
  }

  /** The configuration error of a process that cannot run without the token, saying what it is for. */
  public static String required(String purpose) {
    return AUTH_TOKEN + " or " + AUTH_TOKEN_FILE + " is required: " + purpose;
  }

  /** The value of an {@code Authorization} header carrying this token. */
  public String authorization() {
    return PREFIX + value;
  }

  /** Whether an {@code Authorization} header (possibly null) carries this token. */
  public boolean matches(String authorizationHeader) {
    if (authorizationHeader == null || authorizationHeader.length() < PREFIX.length()
        || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    return MessageDigest.isEqual(digest, sha256(authorizationHeader.substring(PREFIX.length()).strip()));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "SharedToken[redacted]";
  }
}
