package io.shipstream.failover.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's sidecar credential (or, on an install that has not moved to one credential per group,
 * the one token every group shares): the sidecars present it to the watcher's {@code
 * /active-site} and to each other, and the worker and the watcher present it to the sidecars'
 * {@code POST /tick} and {@code GET /status}. A process reads it from AUTH_TOKEN_FILE (a mounted
 * Secret, preferred) or AUTH_TOKEN (environment only); the worker and the watcher read a group's
 * own credential from the Secret its {@code spec.sidecar.tokenSecretRef} names.
 *
 * <p>The value may hold several tokens, one a line: the first is presented, every one is accepted.
 * That is how a credential rotates without a moment where one side refuses the other: add the new
 * token as the first line (everyone accepts both, and presents the new one once its copy of the
 * Secret is updated), then remove the old line. A token read from a file is read again whenever
 * the file changes (a Secret volume swaps its files in place), so no restart is needed; a file that
 * cannot be read keeps the last good value.
 *
 * <p>Compared through digests so the time a check takes says nothing about the value; {@link
 * #toString} never shows it, and only {@link #authorization} hands it out, as the header a
 * request carries.
 */
public final class SharedToken {
  private static final Logger LOG = LoggerFactory.getLogger(SharedToken.class);
  public static final String AUTH_TOKEN_FILE = "AUTH_TOKEN_FILE";
  public static final String AUTH_TOKEN = "AUTH_TOKEN";
  /** The two settings a process that holds the token declares. */
  public static final List<Setting> SETTINGS = List.of(
      Setting.of(AUTH_TOKEN_FILE, null),
      Setting.envOnly(AUTH_TOKEN, null, "from a Secret (a flag is visible in ps and in the pod spec)"));
  private static final String PREFIX = "Bearer ";

  /** The tokens of one reading: the first is presented, any is accepted. */
  private record Value(String presented, List<byte[]> digests) {}

  private volatile Value value;
  /** The file it is re-read from when it changes; null for a fixed value. */
  private final Path file;
  private volatile FileStamp stamp;

  private SharedToken(Value value, Path file, FileStamp stamp) {
    this.value = value;
    this.file = file;
    this.stamp = stamp;
  }

  /** A fixed value: one token, or several one a line (the first is presented). */
  public static SharedToken of(String value) {
    return new SharedToken(parse(value), null, null);
  }

  /**
   * The token held in {@code file}, read now (an unreadable or empty file throws) and again each
   * time the file changes.
   */
  public static SharedToken fromFile(Path file) throws IOException {
    FileStamp stamp = FileStamp.of(file);
    return new SharedToken(parse(Files.readString(file, StandardCharsets.UTF_8)), file, stamp);
  }

  private static Value parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("the shared sidecar token must not be empty");
    }
    List<String> tokens = value.strip().lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    List<byte[]> digests = new ArrayList<>();
    tokens.forEach(t -> digests.add(sha256(t)));
    return new Value(tokens.get(0), List.copyOf(digests));
  }

  /**
   * The token of AUTH_TOKEN_FILE (re-read when the file changes), else of AUTH_TOKEN, or null when
   * neither is set (the caller decides whether it may run without one). A file that cannot be read
   * or holds nothing is an error of {@code r} naming the file, never showing the value.
   */
  public static SharedToken read(ConfigReader r) {
    String value = r.secret(AUTH_TOKEN);
    String file = r.get(AUTH_TOKEN_FILE);
    if (value == null || !value.isBlank()) {
      if (value == null) {
        return null;
      }
      if (file != null && !file.isBlank()) {
        try {
          return fromFile(Path.of(file.strip()));
        } catch (IOException | RuntimeException e) {
          r.error(AUTH_TOKEN_FILE + " " + file.strip() + " cannot be read (" + e.getClass().getSimpleName() + ")");
          return null;
        }
      }
      return of(value);
    }
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

  /** The value of an {@code Authorization} header carrying this token (its first line). */
  public String authorization() {
    return PREFIX + current().presented();
  }

  /** Whether an {@code Authorization} header (possibly null) carries one of these tokens. */
  public boolean matches(String authorizationHeader) {
    if (authorizationHeader == null || authorizationHeader.length() < PREFIX.length()
        || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    byte[] presented = sha256(authorizationHeader.substring(PREFIX.length()).strip());
    boolean found = false;
    for (byte[] digest : current().digests()) {
      // Every digest is compared, so the time says nothing about which one matched.
      found |= MessageDigest.isEqual(digest, presented);
    }
    return found;
  }

  /** Whether a request carries a bearer token at all (refused with 401 without one, 403 with a wrong one). */
  public static boolean bearer(String authorizationHeader) {
    return authorizationHeader != null && authorizationHeader.length() > PREFIX.length()
        && authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
  }

  /** The value now: a file that changed since the last look is read again. */
  private Value current() {
    if (file == null) {
      return value;
    }
    FileStamp now;
    try {
      now = FileStamp.of(file);
    } catch (IOException e) {
      return value;
    }
    if (!now.equals(stamp)) {
      synchronized (this) {
        if (!now.equals(stamp)) {
          try {
            value = parse(Files.readString(file, StandardCharsets.UTF_8));
            LOG.info("the sidecar token in {} changed; using the new one", file);
          } catch (IOException | RuntimeException e) {
            LOG.warn("the sidecar token in {} changed but cannot be read ({}); keeping the last one", file,
                e.getClass().getSimpleName());
          }
          stamp = now;
        }
      }
    }
    return value;
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
