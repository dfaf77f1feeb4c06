package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The map of where each idea lives ({@code docs/contributing/layout.md}) names classes and methods
 * that exist: every code reference in it of the form {@code path/Class} or {@code Class.method}
 * (an optional {@code module/…/} path before it) names a production or test class of the
 * repository, and the method, when one is named, is declared in that class; a bare name that is no
 * class (a condition's or an Event's reason) must at least be spelled by the production code. A
 * class renamed or a method moved without its map entry fails here with the entry.
 */
class CodeMapTest {
  private static final Path MAP = DocLinksTest.ROOT.resolve("docs/contributing/layout.md");
  /** `[path/]Class[.method]`: a class name starts with a capital; a method with a lower-case letter. */
  private static final Pattern REFERENCE =
      Pattern.compile("`((?:[\\w.-]+/|…/)*)([A-Z][A-Za-z0-9]*)(?:\\.([a-z][A-Za-z0-9]*))?`");

  @Test
  void everyClassAndMethodTheMapNamesExists() throws IOException {
    Map<String, List<Path>> classes = javaFilesByClassName();
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (String line : Files.readAllLines(MAP)) {
      Matcher m = REFERENCE.matcher(line);
      while (m.find()) {
        String path = m.group(1);
        String type = m.group(2);
        String method = m.group(3);
        if (isNotAClass(type)) {
          continue;
        }
        checked++;
        if ("java".equals(method)) {
          if (!Files.isRegularFile(DocLinksTest.ROOT.resolve(path + type + ".java"))) {
            missing.add(m.group() + ": no such file");
          }
          continue;
        }
        if (path.isEmpty() && method == null && !classes.containsKey(type) && mentioned(type)) {
          // A bare name of a condition, an Event or another reason the code spells.
          continue;
        }
        List<Path> files = classes.getOrDefault(type, List.of()).stream()
            .filter(f -> inPath(f, path)).toList();
        if (files.isEmpty()) {
          missing.add(m.group() + ": no class " + type + (path.isEmpty() ? "" : " under " + path));
        } else if (method != null && files.stream().noneMatch(f -> declares(f, method))) {
          missing.add(m.group() + ": " + type + " declares no method " + method);
        }
      }
    }
    assertThat(checked).as("code references read from the map").isGreaterThan(50);
    assertThat(missing).as("entries of %s that name no class or method of the code", MAP).isEmpty();
  }

  /** Words in code quotes that are not classes: constants, Events, annotations' values. */
  private static boolean isNotAClass(String word) {
    return word.equals(word.toUpperCase()) || word.startsWith("Bloodraven");
  }

  /** Whether the file lies where the map's path says: each named folder (not "…") is in the file's path. */
  private static boolean inPath(Path file, String path) {
    String normalized = file.toString().replace('\\', '/');
    for (String part : path.split("/")) {
      if (!part.isEmpty() && !part.equals("…") && !normalized.contains("/" + part + "/")) {
        return false;
      }
    }
    return true;
  }

  /** Whether a production source names {@code word} (a reason, an Event, an enum constant). */
  private static boolean mentioned(String word) {
    Pattern whole = Pattern.compile("\\b" + word + "\\b");
    try (Stream<Path> files = Files.walk(DocLinksTest.ROOT)) {
      return files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/"))
          .anyMatch(f -> {
            try {
              return whole.matcher(Files.readString(f)).find();
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          });
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean declares(Path file, String method) {
    try {
      return Pattern.compile("\\b" + method + "\\s*\\(").matcher(Files.readString(file)).find();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, List<Path>> javaFilesByClassName() throws IOException {
    Map<String, List<Path>> byName = new HashMap<>();
    try (Stream<Path> files = Files.walk(DocLinksTest.ROOT)) {
      files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
          .forEach(f -> byName.computeIfAbsent(f.getFileName().toString().replace(".java", ""), k -> new ArrayList<>())
              .add(f));
    }
    return byName;
  }
}
