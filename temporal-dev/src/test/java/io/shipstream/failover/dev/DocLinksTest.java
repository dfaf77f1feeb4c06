package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link and #anchor in the repository's Markdown resolves: the same check as
 * {@code scripts/check-doc-links}, run by the same single-file program ({@code scripts/DocLinks.java})
 * with this JVM's {@code java}. A page moved without its links, or a heading renamed under an anchor
 * that points at it, fails here with the file and line of each broken link.
 */
class DocLinksTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir
  Path work;

  @Test
  void everyRelativeLinkAndAnchorInTheMarkdownResolves() throws Exception {
    Result result = run(ROOT);
    assertThat(result.exit).as("scripts/check-doc-links found broken links:\n%s", result.output).isZero();
    assertThat(result.output).contains(" 0 broken");
  }

  /** The check itself: a missing page, a missing anchor and a link in code are each told apart. */
  @Test
  void aMissingPageOrAnchorIsNamedAndCodeIsNotRead() throws Exception {
    Files.createDirectories(work.resolve("docs"));
    Files.writeString(work.resolve("docs").resolve("page.md"), """
        # A page

        ## Readiness and `/active-site`, measured

        [ok](#readiness-and-active-site-measured) [gone](#nowhere) [up](../README.md#the-top)
        [missing](other.md) `[in code](nowhere.md)` [web](https://example.com/x.md)

            [indented code](nowhere.md)

        ```
        [fenced](nowhere.md)
        ```
        """);
    Files.writeString(work.resolve("README.md"), "# The top\n\n[docs](docs/page.md#a-page)\n");

    Result result = run(work);

    assertThat(result.exit).isEqualTo(1);
    assertThat(result.output.lines().filter(l -> l.contains(": ")))
        .containsExactly("docs/page.md:5: #nowhere: no heading with anchor #nowhere in docs/page.md",
            "docs/page.md:6: other.md: no such file docs/other.md");
    assertThat(result.output).contains("5 relative links in 2 Markdown files, 2 broken");
  }

  private record Result(int exit, String output) {}

  private static Result run(Path root) throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process process = new ProcessBuilder(java, ROOT.resolve("scripts").resolve("DocLinks.java").toString(),
        root.toString()).redirectErrorStream(true).start();
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
