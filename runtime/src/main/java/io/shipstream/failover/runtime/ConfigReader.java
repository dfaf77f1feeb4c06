package io.shipstream.failover.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads a process's settings from environment variables and {@code --flag=value} arguments (a flag
 * wins over the variable of the same name), and collects every bad value instead of stopping at the
 * first, so a broken deployment is fixed in one round rather than one variable per crash loop.
 *
 * <p>Use: {@link #read}, then the typed getters (each records an error and returns null or a
 * placeholder when the value is bad), then {@link #check}, which throws one
 * {@link IllegalArgumentException} naming every problem.
 */
public final class ConfigReader {
  private final String process;
  private final Map<String, Setting> settings = new LinkedHashMap<>();
  private final Map<String, String> values = new LinkedHashMap<>();
  private final List<String> errors = new ArrayList<>();

  private ConfigReader(String process, List<Setting> declared) {
    this.process = process;
    for (Setting s : declared) {
      if (settings.put(s.name(), s) != null) {
        throw new IllegalArgumentException("setting " + s.name() + " declared twice");
      }
      values.put(s.name(), s.defaultValue());
    }
  }

  /**
   * Reads the declared variables from {@code env} (others are ignored: a pod has many) and then the
   * flags. An unknown flag, a positional argument or a flag without a value is an error.
   *
   * @param process what the configuration is of, for the error message ("worker", "watcher")
   */
  public static ConfigReader read(String process, List<Setting> settings, Map<String, String> env, String[] args) {
    ConfigReader reader = new ConfigReader(process, settings);
    for (String name : reader.settings.keySet()) {
      String v = env.get(name);
      // An empty variable is what a Helm template renders for an unset value: treat it as unset.
      if (v != null && !v.isBlank()) {
        reader.values.put(name, v.trim());
      }
    }
    for (String arg : args) {
      reader.applyFlag(arg);
    }
    return reader;
  }

  private void applyFlag(String arg) {
    if (!arg.startsWith("--")) {
      String example = settings.values().stream().filter(s -> !s.isEnvOnly()).findFirst()
          .map(s -> s.flag() + "=" + (s.defaultValue() == null ? "<value>" : s.defaultValue())).orElse("--name=value");
      errors.add("unexpected argument '" + arg + "': flags look like " + example);
      return;
    }
    int eq = arg.indexOf('=');
    String flag = eq < 0 ? arg : arg.substring(0, eq);
    Setting setting = settings.get(flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_'));
    if (setting == null) {
      errors.add("unknown flag " + flag + "; known flags: " + String.join(", ", flagNames()));
    } else if (setting.isEnvOnly()) {
      errors.add(flag + " is not accepted as a flag: set the environment variable " + setting.name() + " "
          + setting.envOnlyReason());
    } else if (eq < 0) {
      errors.add(flag + " needs a value: " + flag + "=<value>");
    } else {
      values.put(setting.name(), arg.substring(eq + 1).trim());
    }
  }

  /** The value as given (or its default), or null when unset. */
  public String get(String name) {
    if (!settings.containsKey(name)) {
      throw new IllegalArgumentException("setting " + name + " was not declared");
    }
    return values.get(name);
  }

  public String required(String name) {
    String value = get(name);
    if (value == null || value.isBlank()) {
      errors.add(name + " is required");
      return null;
    }
    return value;
  }

  /**
   * A secret from the file {@code NAME_FILE} names (the way a Secret volume is mounted), stripped,
   * else from the variable {@code NAME}; null when neither is set, or when the file cannot be read,
   * which is an error naming the file, never showing a value. Both settings must be declared.
   */
  public String secret(String name) {
    String file = get(name + "_FILE");
    if (file != null && !file.isBlank()) {
      try {
        return Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8).strip();
      } catch (IOException | RuntimeException e) {
        errors.add(name + "_FILE " + file.strip() + " cannot be read (" + e.getClass().getSimpleName() + ")");
        return null;
      }
    }
    return get(name);
  }

  /** true or false (any case); null when unset. */
  public Boolean bool(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    errors.add(name + "=" + value + ": expected true or false");
    return null;
  }

  /** A TCP port; 0 asks the system for a free one. Returns -1 when bad. */
  public int port(String name) {
    String value = get(name);
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // Reported below with the same message as an out-of-range number.
    }
    errors.add(name + "=" + value + ": expected a port number 0..65535 (0 picks a free port)");
    return -1;
  }

  /** A readable regular file, or null when unset. */
  public Path file(String name) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    Path path = Path.of(value);
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      errors.add(name + "=" + value + ": no such readable file");
    }
    return path;
  }

  /** Comma-separated values, blanks dropped; empty when unset. */
  public List<String> list(String name) {
    String value = get(name);
    return value == null ? List.of()
        : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /**
   * The value converted by {@code parser}, or null when unset or bad; an
   * {@link IllegalArgumentException} of the parser becomes the error {@code NAME=value: message}.
   */
  public <T> T parse(String name, Function<String, T> parser) {
    String value = get(name);
    if (value == null) {
      return null;
    }
    try {
      return parser.apply(value);
    } catch (IllegalArgumentException e) {
      errors.add(name + "=" + value + ": " + e.getMessage());
      return null;
    }
  }

  /** Records a problem found by the caller, such as two settings that contradict each other. */
  public void error(String message) {
    errors.add(message);
  }

  /** Every problem found so far, for a process that reports them its own way. */
  public List<String> errors() {
    return List.copyOf(errors);
  }

  /** Throws one exception naming every problem found so far, if any. */
  public void check() {
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("invalid " + process + " configuration:\n  - "
          + String.join("\n  - ", errors));
    }
  }

  private List<String> flagNames() {
    return settings.values().stream().filter(s -> !s.isEnvOnly()).map(Setting::flag).toList();
  }

  /** One line per setting, for {@code --help} and for configuration errors. */
  public static String usage(List<Setting> settings) {
    StringBuilder b = new StringBuilder("settings (environment variable, or --flag=value where offered):\n");
    for (Setting s : settings) {
      b.append(String.format("  %-24s %-28s default: %s%n", s.name(), s.isEnvOnly() ? "(environment only)" : s.flag(),
          s.defaultValue() == null ? "unset" : s.defaultValue()));
    }
    return b.toString();
  }
}
