package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.FailureTypes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The failure types and the Event reasons are spelt in one place, the contract package: a string
 * literal equal to one of them anywhere else in production code is a second home that can drift
 * (a workflow matching "LagTimeout" while the activity throws something else). Reads the sources
 * of every production module, comments left out.
 */
class ContractLiteralsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  /** Modules that are no product code: the dev stack and the test support. */
  private static final Set<String> NOT_PRODUCT = Set.of("temporal-dev", "testsupport");
  private static final String CONTRACT = "io/shipstream/failover/workflows/contract/";

  @Test
  void failureTypesAndEventReasonsAreSpeltOnlyInTheContract() throws IOException {
    Set<String> words = new TreeSet<>(FailureTypes.ALL);
    for (Events e : Events.values()) {
      words.add(e.reason());
    }
    List<Path> sources = productionSources();
    assertThat(sources).as("production sources found under " + ROOT).isNotEmpty();
    assertThat(sources).as("the watcher is scanned").anyMatch(p -> p.toString().contains("/watcher/src/main/java/"));

    List<String> found = new ArrayList<>();
    for (Path source : sources) {
      if (source.toString().replace('\\', '/').contains(CONTRACT)) {
        continue;
      }
      for (String literal : stringLiterals(Files.readString(source))) {
        if (words.contains(literal)) {
          found.add(ROOT.relativize(source) + ": \"" + literal + "\"");
        }
      }
    }
    assertThat(found).as("failure types and Event reasons outside the contract package").isEmpty();
  }

  @Test
  void theLexerSeesStringsButNotComments() {
    String code = "// \"LineComment\"\n/* \"BlockComment\" */ String a = \"One\"; char c = '\"';"
        + " String b = \"Two \\\" quoted\"; /** \"Doc\" */ String t = \"\"\"\n  Block\n  \"\"\";";
    assertThat(stringLiterals(code)).containsExactly("One", "Two \\\" quoted", "\n  Block\n  ");
  }

  static List<Path> productionSources() throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        Path main = module.resolve("src/main/java");
        if (NOT_PRODUCT.contains(module.getFileName().toString()) || !Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          files.filter(p -> p.toString().endsWith(".java")).forEach(out::add);
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return out;
  }

  /** The contents of the string literals and text blocks of a Java source, comments skipped. */
  static List<String> stringLiterals(String code) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = code.length();
    while (i < n) {
      char c = code.charAt(i);
      if (code.startsWith("//", i)) {
        int end = code.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (code.startsWith("/*", i)) {
        int end = code.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (code.startsWith("\"\"\"", i)) {
        int end = code.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end;
        out.add(code.substring(i + 3, end));
        i = Math.min(n, end + 3);
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && code.charAt(j) != c && code.charAt(j) != '\n') {
          j += code.charAt(j) == '\\' ? 2 : 1;
        }
        if (c == '"') {
          out.add(code.substring(i + 1, Math.min(j, n)));
        }
        i = j + 1;
      } else {
        i++;
      }
    }
    return out;
  }
}
