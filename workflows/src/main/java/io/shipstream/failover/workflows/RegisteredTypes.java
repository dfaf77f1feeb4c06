package io.shipstream.failover.workflows;

import io.temporal.common.metadata.POJOActivityImplMetadata;
import io.temporal.common.metadata.POJOActivityMethodMetadata;
import io.temporal.common.metadata.POJOWorkflowImplMetadata;
import io.temporal.common.metadata.POJOWorkflowInterfaceMetadata;
import io.temporal.common.metadata.POJOWorkflowMethodMetadata;
import io.temporal.common.metadata.WorkflowMethodType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The type names a worker registers, as Temporal derives them from the implementations at
 * registration: what a run's history and the watcher's starts, signals and queries name. A
 * release lists them ({@code histories/<version>/types.txt}); a later worker must still register
 * each, or a run in flight or a watcher of that release calls a type nobody serves.
 */
public final class RegisteredTypes {
  private RegisteredTypes() {}

  /**
   * One name a line, sorted: {@code workflow <type>}, {@code signal|query|update <workflow type>
   * <name>}, {@code activity <type>}.
   */
  public static List<String> names(Collection<Class<?>> workflowImplementations,
      Collection<Class<?>> activityImplementations) {
    TreeSet<String> names = new TreeSet<>();
    for (Class<?> impl : workflowImplementations) {
      for (POJOWorkflowInterfaceMetadata iface : POJOWorkflowImplMetadata.newInstance(impl).getWorkflowInterfaces()) {
        String type = iface.getWorkflowType().orElseThrow();
        names.add("workflow " + type);
        for (POJOWorkflowMethodMetadata method : iface.getMethodsMetadata()) {
          WorkflowMethodType kind = method.getType();
          if (kind != WorkflowMethodType.WORKFLOW && kind != WorkflowMethodType.NONE) {
            names.add(kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + " " + type + " " + method.getName());
          }
        }
      }
    }
    for (Class<?> impl : activityImplementations) {
      for (POJOActivityMethodMetadata method : POJOActivityImplMetadata.newInstance(impl).getActivityMethods()) {
        names.add("activity " + method.getActivityTypeName());
      }
    }
    return List.copyOf(names);
  }

  /** The names a list ({@link #names}' format; blank and {@code #} lines skipped) has that {@code registered} lacks. */
  public static List<String> missing(Path list, Collection<String> registered) throws IOException {
    TreeSet<String> now = new TreeSet<>(registered);
    return Files.readAllLines(list).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .filter(l -> !now.contains(l)).toList();
  }
}
