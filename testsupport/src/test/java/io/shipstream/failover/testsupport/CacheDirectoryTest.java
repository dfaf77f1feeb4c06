package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CacheDirectoryTest {
  static final String PROPERTY = "bloodraven.test.cache-directory";
  /** An environment variable no machine sets: the property or the fallback decides. */
  final CacheDirectory directory =
      new CacheDirectory(PROPERTY, "BLOODRAVEN_TEST_UNSET_" + System.nanoTime(), "/fallback");

  @AfterEach
  void clear() {
    System.clearProperty(PROPERTY);
  }

  @Test
  void theFallbackWhenNothingIsConfigured() {
    assertThat(directory.configured()).isEmpty();
    assertThat(directory.path()).isEqualTo(Path.of("/fallback"));
  }

  @Test
  void theSystemPropertyWins() {
    System.setProperty(PROPERTY, "/from/property");
    assertThat(directory.configured()).contains(Path.of("/from/property"));
    assertThat(directory.path()).isEqualTo(Path.of("/from/property"));
  }

  @Test
  void aBlankPropertyCountsAsUnset() {
    System.setProperty(PROPERTY, "  ");
    assertThat(directory.path()).isEqualTo(Path.of("/fallback"));
  }

  @Test
  void theEnvironmentWhenThePropertyIsUnset() {
    String path = System.getenv("PATH");
    CacheDirectory fromEnv = new CacheDirectory(PROPERTY, "PATH", "/fallback");
    assertThat(fromEnv.configured()).contains(Path.of(path));
  }
}
