package io.shipstream.failover.workflows;

import io.temporal.common.metadata.POJOActivityImplMetadata;
import io.temporal.common.metadata.POJOActivityMethodMetadata;
import io.temporal.common.metadata.POJOWorkflowImplMetadata;
import io.temporal.common.metadata.POJOWorkflowInterfaceMetadata;
import io.temporal.common.metadata.POJOWorkflowMethodMetadata;
import io.temporal.common.metadata.WorkflowMethodType;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
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
    return List.copyOf(methods(workflowImplementations, activityImplementations).keySet());
  }

  /**
   * Each name {@link #names} lists with the interface method it names (a workflow type's: its
   * workflow method): whose parameters and result are the payloads a caller of another release
   * sends and reads under that name.
   */
  public static SortedMap<String, Method> methods(Collection<Class<?>> workflowImplementations,
      Collection<Class<?>> activityImplementations) {
    SortedMap<String, Method> names = new TreeMap<>();
    for (Class<?> impl : workflowImplementations) {
      for (POJOWorkflowInterfaceMetadata iface : POJOWorkflowImplMetadata.newInstance(impl).getWorkflowInterfaces()) {
        String type = iface.getWorkflowType().orElseThrow();
        for (POJOWorkflowMethodMetadata method : iface.getMethodsMetadata()) {
          WorkflowMethodType kind = method.getType();
          if (kind == WorkflowMethodType.WORKFLOW) {
            names.put("workflow " + type, method.getWorkflowMethod());
          } else if (kind != WorkflowMethodType.NONE) {
            names.put(kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + " " + type + " " + method.getName(),
                method.getWorkflowMethod());
          }
        }
      }
    }
    for (Class<?> impl : activityImplementations) {
      for (POJOActivityMethodMetadata method : POJOActivityImplMetadata.newInstance(impl).getActivityMethods()) {
        names.put("activity " + method.getActivityTypeName(), method.getMethod());
      }
    }
    return names;
  }

  /**
   * The names a list's lines ({@link #names}' format; blank and {@code #} lines skipped) hold that
   * {@code registered} lacks. The caller reads the list: the workflows module does no file I/O.
   */
  public static List<String> missing(List<String> listLines, Collection<String> registered) {
    TreeSet<String> now = new TreeSet<>(registered);
    return listLines.stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .filter(l -> !now.contains(l)).toList();
  }
}
