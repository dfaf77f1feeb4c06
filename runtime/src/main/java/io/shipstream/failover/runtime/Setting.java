package io.shipstream.failover.runtime;

/**
 * One setting of a process: the environment variable's name (the flag is derived from it:
 * {@code TASK_QUEUE} is {@code --task-queue}), its default, and why it may not be given as a flag.
 *
 * @param defaultValue null when the setting is unset unless given
 * @param envOnlyReason null when a flag may give it; otherwise the end of the sentence that
 *     refuses the flag, such as "from a Secret (a flag is visible in ps and in the pod spec)"
 */
public record Setting(String name, String defaultValue, String envOnlyReason) {

  public static Setting of(String name, String defaultValue) {
    return new Setting(name, defaultValue, null);
  }

  public static Setting envOnly(String name, String defaultValue, String reason) {
    return new Setting(name, defaultValue, reason);
  }

  public boolean isEnvOnly() {
    return envOnlyReason != null;
  }

  public String flag() {
    return "--" + name.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** The same setting with another default: HTTP_PORT is 9090 in one process and 8080 in another. */
  public Setting withDefault(String value) {
    return new Setting(name, value, envOnlyReason);
  }
}
