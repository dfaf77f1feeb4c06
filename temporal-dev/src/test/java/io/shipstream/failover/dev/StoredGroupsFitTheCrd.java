package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.CrdSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails the IT whose stack left a group that does not fit the generated CRD. FailoverStack.close()
 * writes the group as the mock stored it (see StoredGroupDump); the mock keeps fields a real API
 * server would prune without a word, so a status field the workflows or the watcher write but the
 * CRD lacks shows up here. Runs after each test and after the class, after the IT's own
 * {@code @AfterEach}/{@code @AfterAll} closed its stack, and checks each file once.
 */
public final class StoredGroupsFitTheCrd implements AfterEachCallback, AfterAllCallback {
  private static final Set<Path> CHECKED = ConcurrentHashMap.newKeySet();
  private static final CrdSchema SCHEMA = CrdSchema.generated();

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    check();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    check();
  }

  private static void check() throws IOException {
    String dir = System.getProperty(StoredGroupDump.DIR_PROPERTY);
    if (dir != null && Files.isDirectory(Path.of(dir))) {
      check(Path.of(dir));
    }
  }

  /** Checks the files in {@code dir} not checked before; throws naming every undeclared field. */
  static void check(Path dir) throws IOException {
    List<String> problems = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        if (CHECKED.add(file)) {
          SCHEMA.problems(Files.readString(file, StandardCharsets.UTF_8))
              .forEach(p -> problems.add(file.getFileName() + " " + p));
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new AssertionError("the group as stored has fields the CRD does not declare (a real API server "
          + "drops them):\n  " + String.join("\n  ", problems));
    }
  }
}
