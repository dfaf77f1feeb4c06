package io.shipstream.failover.watcher.activesite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;

/**
 * The token the sidecars of a group present as {@code Authorization: Bearer <token>}, from the
 * same Secret the sidecars get it from: AUTH_TOKEN_FILE (a mounted Secret, preferred) or
 * AUTH_TOKEN. Compared through digests so the time a check takes says nothing about the value;
 * {@link #toString} never shows it.
 *
 * <p>The sidecar module has its own twin of this class: the module rules let neither depend on
 * the other, and twenty lines do not justify a shared module.
 */
public final class SharedToken {
  private static final String PREFIX = "Bearer ";

  private final byte[] digest;
  /** Kept only to present the token to sidecars; checks compare digests, never this. */
  private final String value;

  private SharedToken(String value) {
    this.digest = sha256(value);
    this.value = value;
  }

  public static SharedToken of(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("the shared sidecar token must not be empty");
    }
    return new SharedToken(value.strip());
  }

  /**
   * Reads AUTH_TOKEN_FILE, else AUTH_TOKEN.
   *
   * @throws IllegalArgumentException naming the variable, never its value, when neither gives a token
   */
  public static SharedToken fromEnvironment(Map<String, String> env) {
    String file = env.get("AUTH_TOKEN_FILE");
    if (file != null && !file.isBlank()) {
      try {
        return of(Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new IllegalArgumentException("AUTH_TOKEN_FILE " + file.strip() + " cannot be read ("
            + e.getClass().getSimpleName() + ")", e);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("AUTH_TOKEN_FILE " + file.strip() + " holds no token", e);
      }
    }
    String value = env.get("AUTH_TOKEN");
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("AUTH_TOKEN_FILE or AUTH_TOKEN is required: sidecars authenticate "
          + "GET /active-site with the group's shared token");
    }
    return of(value);
  }

  /** Whether an {@code Authorization} header (possibly null) carries this token. */
  public boolean matches(String authorizationHeader) {
    if (authorizationHeader == null || authorizationHeader.length() < PREFIX.length()
        || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    return MessageDigest.isEqual(digest, sha256(authorizationHeader.substring(PREFIX.length()).strip()));
  }

  /** The {@code Authorization} header value that carries this token, for the watcher's own requests to sidecars. */
  public String authorization() {
    return PREFIX + value;
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
