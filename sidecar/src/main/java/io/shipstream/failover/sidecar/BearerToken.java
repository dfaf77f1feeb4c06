package io.shipstream.failover.sidecar;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The shared token the watcher and the sidecars of a group authenticate each other with. The value
 * never leaves this class except as a request header: {@link #toString} hides it, and {@link
 * #matches} compares digests so the time it takes says nothing about the value or its length.
 */
public final class BearerToken {
  private static final String PREFIX = "Bearer ";

  private final String value;
  private final byte[] digest;

  private BearerToken(String value) {
    this.value = value;
    this.digest = sha256(value);
  }

  public static BearerToken of(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("the shared token must not be empty");
    }
    return new BearerToken(value.strip());
  }

  /** The value of an {@code Authorization} header carrying this token. */
  public String header() {
    return PREFIX + value;
  }

  /** Whether an {@code Authorization} header (possibly null) carries this token. */
  public boolean matches(String authorizationHeader) {
    if (authorizationHeader == null || authorizationHeader.length() < PREFIX.length()
        || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    String presented = authorizationHeader.substring(PREFIX.length()).strip();
    return MessageDigest.isEqual(digest, sha256(presented));
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
    return "BearerToken[redacted]";
  }
}
