package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigReaderTest {
  private static final List<Setting> SETTINGS = List.of(
      Setting.of("TASK_QUEUE", "mysql-failover"),
      Setting.of("HTTP_PORT", "8080"),
      Setting.of("NAMESPACES", null),
      Setting.of("TIMEOUT", "5s"),
      Setting.envOnly("SECRET", null, "from a Secret"));

  @Test
  void flagsWinOverTheEnvironmentWhichWinsOverDefaults() {
    ConfigReader r = ConfigReader.read("test", SETTINGS, Map.of("TASK_QUEUE", "env", "HTTP_PORT", "9000",
        "NAMESPACES", " a, b ,,c", "SECRET", "s"), new String[] {"--task-queue=flag"});

    assertThat(r.get("TASK_QUEUE")).isEqualTo("flag");
    assertThat(r.port("HTTP_PORT")).isEqualTo(9000);
    assertThat(r.list("NAMESPACES")).containsExactly("a", "b", "c");
    assertThat(r.get("SECRET")).isEqualTo("s");
    r.check();
  }

  @Test
  void aBlankVariableIsUnsetAsAHelmTemplateRendersIt() {
    ConfigReader r = ConfigReader.read("test", SETTINGS, Map.of("TASK_QUEUE", "  "), new String[0]);

    assertThat(r.get("TASK_QUEUE")).isEqualTo("mysql-failover");
    assertThat(r.list("NAMESPACES")).isEmpty();
  }

  @Test
  void problemsAreCollectedAndReportedTogether() {
    ConfigReader r = ConfigReader.read("test", SETTINGS, Map.of("HTTP_PORT", "-1", "TIMEOUT", "soon"),
        new String[] {"--secret=s", "--nope=1", "--task-queue", "positional"});
    r.port("HTTP_PORT");
    r.parse("TIMEOUT", v -> {
      if (!v.endsWith("s")) {
        throw new IllegalArgumentException("not a duration");
      }
      return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
    });

    assertThatThrownBy(r::check)
        .hasMessageStartingWith("invalid test configuration:")
        .hasMessageContaining("--secret is not accepted as a flag: set the environment variable SECRET from a Secret")
        .hasMessageContaining("unknown flag --nope; known flags: --task-queue, --http-port, --namespaces, --timeout")
        .hasMessageContaining("--task-queue needs a value")
        .hasMessageContaining("unexpected argument 'positional'")
        .hasMessageContaining("HTTP_PORT=-1: expected a port number 0..65535")
        .hasMessageContaining("TIMEOUT=soon: not a duration");
  }

  @Test
  void usageShowsFlagsDefaultsAndWhatIsEnvironmentOnly() {
    assertThat(ConfigReader.usage(SETTINGS))
        .contains("TASK_QUEUE", "--task-queue", "mysql-failover")
        .contains("SECRET", "(environment only)", "unset");
  }
}
