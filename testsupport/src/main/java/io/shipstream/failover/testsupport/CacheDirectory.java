package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A directory the test machinery keeps outside the repository (the MySQL root, the built releases
 * of the upgrade drill), named the same way for each: the system property {@code property}, else
 * the environment variable {@code env}, else {@code fallback}. A blank value counts as unset.
 */
public record CacheDirectory(String property, String env, String fallback) {
  /** The directory the system property or the environment names, if either does. */
  public Optional<Path> configured() {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      value = System.getenv(env);
    }
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
  }

  /** The configured directory, else the fallback. */
  public Path path() {
    return configured().orElse(Path.of(fallback));
  }
}
