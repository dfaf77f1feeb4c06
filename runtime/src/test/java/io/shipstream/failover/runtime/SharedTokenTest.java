package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one way the watcher, the worker and the sidecars read and use the sidecars' shared token. */
class SharedTokenTest {
  private static final String TOKEN = "s3cr3t-token";
  private static final String[] NO_FLAGS = new String[0];

  @TempDir
  Path dir;

  private static ConfigReader reader(Map<String, String> env, String... args) {
    return ConfigReader.read("test", SharedToken.SETTINGS, env, args);
  }

  @Test
  void comesFromAMountedFileBeforeTheEnvironment() throws IOException {
    Path file = Files.writeString(dir.resolve("token"), TOKEN + "\n");

    SharedToken fromFile = SharedToken.read(reader(Map.of("AUTH_TOKEN", "other"), "--auth-token-file=" + file));
    SharedToken fromEnv = SharedToken.read(reader(Map.of("AUTH_TOKEN", TOKEN)));

    assertThat(fromFile.matches("Bearer " + TOKEN)).isTrue();
    assertThat(fromEnv.matches("bearer " + TOKEN)).as("the scheme is case-insensitive").isTrue();
    assertThat(SharedToken.read(reader(Map.of()))).as("unset: the caller decides").isNull();
  }

  @Test
  void aFileThatCannotBeReadOrIsEmptyIsAConfigurationError() throws IOException {
    ConfigReader missing = reader(Map.of("AUTH_TOKEN_FILE", dir.resolve("missing").toString()));
    assertThat(SharedToken.read(missing)).isNull();
    assertThatThrownBy(missing::check)
        .hasMessageContaining("AUTH_TOKEN_FILE " + dir.resolve("missing") + " cannot be read (NoSuchFileException)");

    ConfigReader empty = reader(Map.of("AUTH_TOKEN_FILE", Files.writeString(dir.resolve("empty"), "\n").toString()));
    assertThat(SharedToken.read(empty)).isNull();
    assertThatThrownBy(empty::check).hasMessageContaining("holds no token");
  }

  @Test
  void theValueIsRefusedAsAFlagAndOnlyTheHeaderCarriesIt() {
    assertThatThrownBy(() -> reader(Map.of(), "--auth-token=" + TOKEN).check())
        .hasMessageContaining("--auth-token is not accepted as a flag")
        .hasMessageNotContaining(TOKEN);
    SharedToken token = SharedToken.of(TOKEN);
    assertThat(token.toString()).doesNotContain(TOKEN);
    assertThat(token.authorization()).isEqualTo("Bearer " + TOKEN);
    assertThat(token.matches(token.authorization())).isTrue();
    assertThat(token.matches("Bearer wrong")).isFalse();
    assertThat(token.matches("Basic " + TOKEN)).isFalse();
    assertThat(token.matches(null)).isFalse();
    assertThatThrownBy(() -> SharedToken.of(" ")).hasMessage("the shared sidecar token must not be empty");
  }

  /** The sidecar's cases, from when it kept a twin of this class. */
  @Test
  void acceptsOnlyTheExactTokenAsABearerHeader() {
    SharedToken token = SharedToken.of(TOKEN);
    assertThat(token.matches("Bearer s3cr3t-token")).isTrue();
    assertThat(token.matches("bearer s3cr3t-token")).isTrue();
    assertThat(token.matches(token.authorization())).isTrue();

    assertThat(token.matches(null)).isFalse();
    assertThat(token.matches("")).isFalse();
    assertThat(token.matches("Bearer ")).isFalse();
    assertThat(token.matches("Bearer s3cr3t-tokeN")).isFalse();
    assertThat(token.matches("Bearer s3cr3t-token-and-more")).isFalse();
    assertThat(token.matches("Basic s3cr3t-token")).isFalse();
    assertThat(token.matches("s3cr3t-token")).isFalse();
    assertThat(token.toString()).doesNotContain("s3cr3t");
    assertThatThrownBy(() -> SharedToken.of("  ")).hasMessage("the shared sidecar token must not be empty");
  }
}
