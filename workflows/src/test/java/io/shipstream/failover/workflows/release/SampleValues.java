package io.shipstream.failover.workflows.release;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A fully populated value of a payload type, built by reflection so that a field added to a record
 * is in the next release's golden payloads without anyone writing a fixture: every record
 * component is set (through the canonical constructor, nested records too; a bean's every property
 * through its setter), a collection or a map
 * holds one element, an enum takes one of its constants, a number, a string and a time are set and
 * distinct from each other (a counter runs through the value). Deterministic: the same type gives
 * the same value, so a payload recorded twice is the same file. A type it cannot build (an
 * interface, an abstract class, a type it does not know) fails naming where it met it:
 * a payload Jackson could not build either, or one this builder should learn.
 */
public final class SampleValues {
  /** The time every sample's instants count from. */
  static final Instant EPOCH = Instant.parse("2026-01-02T03:04:05.678Z");
  private static final int MAX_DEPTH = 24;
  /** Only to find a bean's properties, as Jackson sees them. */
  private static final ObjectMapper BEANS = new ObjectMapper();

  private int counter;

  private SampleValues() {}

  /** A fully populated value of {@code type}. */
  public static Object of(Type type) {
    return new SampleValues().build(type, Map.of(), "", "value", 0);
  }

  private int next() {
    return ++counter;
  }

  private Object build(Type type, Map<TypeVariable<?>, Type> bindings, String path, String name, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("payload type nests deeper than " + MAX_DEPTH + " at " + where(path)
          + ": a type that contains itself?");
    }
    if (type instanceof TypeVariable<?> variable) {
      Type bound = bindings.get(variable);
      if (bound == null) {
        throw new IllegalArgumentException("unbound type variable " + variable + " at " + where(path));
      }
      return build(bound, bindings, path, name, depth);
    }
    if (type instanceof WildcardType wildcard) {
      return build(wildcard.getUpperBounds()[0], bindings, path, name, depth);
    }
    if (type instanceof GenericArrayType array) {
      Class<?> component = raw(array.getGenericComponentType(), bindings);
      Object value = Array.newInstance(component, 1);
      Array.set(value, 0, build(array.getGenericComponentType(), bindings, path + "[]", name, depth + 1));
      return value;
    }
    Class<?> raw = raw(type, bindings);
    Type[] arguments = type instanceof ParameterizedType p ? p.getActualTypeArguments() : new Type[0];
    Object simple = simple(raw, name);
    if (simple != null) {
      return simple;
    }
    if (raw.isEnum()) {
      Object[] constants = raw.getEnumConstants();
      return constants[next() % constants.length];
    }
    if (raw.isArray()) {
      Object value = Array.newInstance(raw.getComponentType(), 1);
      Array.set(value, 0, build(raw.getComponentType(), bindings, path + "[]", name, depth + 1));
      return value;
    }
    if (raw == Optional.class) {
      return Optional.of(build(argument(arguments, 0, path), bindings, path, name, depth + 1));
    }
    if (Map.class.isAssignableFrom(raw)) {
      Object key = build(argument(arguments, 0, path), bindings, path + "{key}", "key", depth + 1);
      Object value = build(argument(arguments, 1, path), bindings, path + "{}", name, depth + 1);
      Map<Object, Object> map = SortedMap.class.isAssignableFrom(raw) ? new TreeMap<>()
          : raw.isAssignableFrom(LinkedHashMap.class) ? new LinkedHashMap<>() : new HashMap<>();
      map.put(key, value);
      return map;
    }
    if (Collection.class.isAssignableFrom(raw)) {
      Object element = build(argument(arguments, 0, path), bindings, path + "[]", name, depth + 1);
      Collection<Object> collection = SortedSet.class.isAssignableFrom(raw) ? new TreeSet<>()
          : Set.class.isAssignableFrom(raw) ? new LinkedHashSet<>() : new ArrayList<>();
      collection.add(element);
      return collection;
    }
    if (raw.isRecord()) {
      return record(raw, bind(raw, arguments, bindings), path, depth);
    }
    if (!raw.isInterface() && !Modifier.isAbstract(raw.getModifiers()) && hasPublicNoArgConstructor(raw)) {
      return bean(raw, type, bindings, path, depth);
    }
    throw new IllegalArgumentException("cannot build a sample " + raw.getName() + " at " + where(path)
        + ": only records, beans (a public no-argument constructor and setters), enums, collections, maps,"
        + " strings, numbers, booleans, Instant and Duration (a payload type should be a record; teach SampleValues"
        + " a new value type)");
  }

  private static boolean hasPublicNoArgConstructor(Class<?> raw) {
    try {
      return Modifier.isPublic(raw.getConstructor().getModifiers());
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /**
   * A bean (a Kubernetes model class such as {@code Condition}): every property Jackson writes and
   * can set back, by name, set through its setter.
   */
  private Object bean(Class<?> raw, Type type, Map<TypeVariable<?>, Type> bindings, String path, int depth) {
    JavaType javaType = BEANS.constructType(type);
    List<BeanPropertyDefinition> properties = new ArrayList<>(
        BEANS.getSerializationConfig().introspect(javaType).findProperties());
    properties.sort(Comparator.comparing(BeanPropertyDefinition::getName));
    if (properties.isEmpty()) {
      throw new IllegalArgumentException(raw.getName() + " at " + where(path) + " has no property Jackson writes");
    }
    try {
      Object bean = raw.getConstructor().newInstance();
      for (BeanPropertyDefinition property : properties) {
        if (!property.hasSetter()) {
          throw new IllegalArgumentException("property " + property.getName() + " of " + raw.getName() + " at "
              + where(path) + " has no setter");
        }
        Method setter = property.getSetter().getAnnotated();
        String child = path.isEmpty() ? property.getName() : path + "." + property.getName();
        setter.invoke(bean, build(setter.getGenericParameterTypes()[0], bindings, child, property.getName(),
            depth + 1));
      }
      return bean;
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(raw.getName() + " at " + where(path) + " refused the sample values: "
          + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException("cannot construct " + raw.getName() + " at " + where(path) + ": " + e, e);
    }
  }

  private Object record(Class<?> raw, Map<TypeVariable<?>, Type> bindings, String path, int depth) {
    RecordComponent[] components = raw.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      String child = path.isEmpty() ? components[i].getName() : path + "." + components[i].getName();
      values[i] = build(components[i].getGenericType(), bindings, child, components[i].getName(), depth + 1);
    }
    try {
      Constructor<?> canonical = raw.getDeclaredConstructor(types);
      canonical.setAccessible(true);
      return canonical.newInstance(values);
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException("the canonical constructor of " + raw.getName() + " at " + where(path)
          + " refused the sample values: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException("cannot construct " + raw.getName() + " at " + where(path) + ": " + e, e);
    }
  }

  /** A string, a number, a boolean or a time; null for any other type. */
  private Object simple(Class<?> raw, String name) {
    if (raw == String.class) {
      return name + "-" + next();
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return Boolean.TRUE;
    }
    if (raw == int.class || raw == Integer.class) {
      return next();
    }
    if (raw == long.class || raw == Long.class) {
      return (long) next();
    }
    if (raw == short.class || raw == Short.class) {
      return (short) next();
    }
    if (raw == byte.class || raw == Byte.class) {
      return (byte) next();
    }
    if (raw == double.class || raw == Double.class) {
      return next() + 0.5;
    }
    if (raw == float.class || raw == Float.class) {
      return next() + 0.5f;
    }
    if (raw == char.class || raw == Character.class) {
      return (char) ('a' + next() % 26);
    }
    if (raw == Instant.class) {
      return EPOCH.plusSeconds(next());
    }
    if (raw == Duration.class) {
      return Duration.ofMillis(1000L * next() + 250);
    }
    return null;
  }

  private static Class<?> raw(Type type, Map<TypeVariable<?>, Type> bindings) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    if (type instanceof GenericArrayType a) {
      return Array.newInstance(raw(a.getGenericComponentType(), bindings), 0).getClass();
    }
    if (type instanceof TypeVariable<?> v && bindings.containsKey(v)) {
      return raw(bindings.get(v), bindings);
    }
    if (type instanceof WildcardType w) {
      return raw(w.getUpperBounds()[0], bindings);
    }
    throw new IllegalArgumentException("cannot resolve " + type);
  }

  private static Map<TypeVariable<?>, Type> bind(Class<?> raw, Type[] arguments, Map<TypeVariable<?>, Type> outer) {
    TypeVariable<?>[] variables = raw.getTypeParameters();
    if (variables.length == 0) {
      return Map.of();
    }
    if (arguments.length != variables.length) {
      throw new IllegalArgumentException(
          "raw use of the generic " + raw.getName() + ": its type arguments are unknown");
    }
    Map<TypeVariable<?>, Type> bindings = new HashMap<>();
    for (int i = 0; i < variables.length; i++) {
      Type argument = arguments[i];
      bindings.put(variables[i],
          argument instanceof TypeVariable<?> v && outer.containsKey(v) ? outer.get(v) : argument);
    }
    return bindings;
  }

  private static Type argument(Type[] arguments, int i, String path) {
    if (arguments.length <= i) {
      throw new IllegalArgumentException("a raw collection or map at " + where(path) + ": its element type is unknown");
    }
    return arguments[i];
  }

  private static String where(String path) {
    return path.isEmpty() ? "the top" : path;
  }
}
