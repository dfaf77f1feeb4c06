package io.shipstream.failover.watcher;

import io.shipstream.failover.workflows.TaskQueues;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The watcher's settings, from the environment with {@code --name=value} flags on top (flags win).
 * Names: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, WATCH_NAMESPACES (comma-separated,
 * empty = all), HTTP_PORT, SEARCH_ATTRIBUTES (true when the namespace has them registered).
 */
public record WatcherConfig(
    String temporalAddress,
    String temporalNamespace,
    String taskQueue,
    List<String> watchNamespaces,
    int httpPort,
    boolean searchAttributes) {

  public WatcherConfig withSearchAttributes(boolean enabled) {
    return new WatcherConfig(temporalAddress, temporalNamespace, taskQueue, watchNamespaces, httpPort, enabled);
  }

  public static WatcherConfig defaults() {
    return from(Map.of(), new String[0]);
  }

  public static WatcherConfig from(Map<String, String> env, String[] args) {
    Map<String, String> v = new HashMap<>(env);
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got '" + arg + "'");
      }
      String name = arg.substring(2, arg.indexOf('=')).toUpperCase().replace('-', '_');
      v.put(name, arg.substring(arg.indexOf('=') + 1));
    }
    int port;
    try {
      port = Integer.parseInt(v.getOrDefault("HTTP_PORT", "8080"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("HTTP_PORT must be a number, not '" + v.get("HTTP_PORT") + "'");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("HTTP_PORT " + port + " is not a port");
    }
    String namespaces = v.getOrDefault("WATCH_NAMESPACES", "");
    return new WatcherConfig(
        v.getOrDefault("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
        v.getOrDefault("TEMPORAL_NAMESPACE", "default"),
        v.getOrDefault("TASK_QUEUE", TaskQueues.FAILOVER),
        namespaces.isBlank() ? List.of() : Arrays.stream(namespaces.split(",")).map(String::trim)
            .filter(s -> !s.isEmpty()).toList(),
        port,
        Boolean.parseBoolean(v.getOrDefault("SEARCH_ATTRIBUTES", "false")));
  }
}
