package io.shipstream.failover.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The token the sidecars of a group share, and which the watcher and the worker hold too: the
 * sidecars present it to the watcher's {@code /active-site}, and the worker presents it to the
 * sidecars' {@code POST /tick} and {@code GET /status}. Both processes read it the same way, from
 * the Secret the sidecars get it from: AUTH_TOKEN_FILE (a mounted Secret, preferred) or AUTH_TOKEN
 * (environment only). Compared through digests so the time a check takes says nothing about the
 * value; {@link #toString} never shows it, and only {@link #authorization} hands it out, as the
 * header a request carries.
 *
 * <p>The sidecar module keeps its own twin (BearerToken): it may not depend on this module, which
 * brings the Temporal SDK with it.
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
    String file = r.get(AUTH_TOKEN_FILE);
    if (file != null && !file.isBlank()) {
      try {
        return of(Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8));
      } catch (IOException e) {
        r.error(AUTH_TOKEN_FILE + " " + file.strip() + " cannot be read (" + e.getClass().getSimpleName() + ")");
      } catch (IllegalArgumentException e) {
        r.error(AUTH_TOKEN_FILE + " " + file.strip() + " holds no token");
      }
      return null;
    }
    String value = r.get(AUTH_TOKEN);
    return value == null || value.isBlank() ? null : of(value);
  }

  /** The configuration error of a process that cannot run without the token, saying what it is for. */
  public static String required(String purpose) {
    return AUTH_TOKEN_FILE + " or " + AUTH_TOKEN + " is required: " + purpose;
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
