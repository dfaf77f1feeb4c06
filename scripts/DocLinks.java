import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks that every relative link in the repository's Markdown resolves: the file or directory it
 * names exists, and its {@code #anchor} (in the same page or another Markdown page) is one GitHub
 * gives a heading of that page (or an explicit {@code <a id>}/{@code <a name>}). Links with a
 * scheme (https:, mailto:) are not followed; code blocks and code spans are not read.
 *
 * <p>Run as a single-file program, with no build: {@code java scripts/DocLinks.java [root]}
 * ({@code scripts/check-doc-links} does that; {@code DocLinksTest} runs the same in the build).
 * Prints each broken link as {@code file:line: target: why} and exits 1 when there is one.
 */
public final class DocLinks {
  /** {@code [text](target "title")}, the text holding at most one level of brackets. */
  private static final Pattern INLINE = Pattern.compile(
      "!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]" + "\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern DEFINITION = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
  private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules", ".mvn");

  private final Path root;
  private final Map<Path, Set<String>> anchors = new HashMap<>();
  private int links;

  private DocLinks(Path root) {
    this.root = root;
  }

  public static void main(String[] args) {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    DocLinks check = new DocLinks(root);
    List<Path> pages = check.pages();
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      broken.addAll(check.check(page));
    }
    broken.forEach(System.out::println);
    System.out.printf("%d relative links in %d Markdown files, %d broken%n", check.links, pages.size(),
        broken.size());
    System.exit(broken.isEmpty() ? 0 : 1);
  }

  /** Every Markdown file under the root, outside build output and Git's own directory. */
  private List<Path> pages() {
    List<Path> pages = new ArrayList<>();
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
          return SKIPPED_DIRS.contains(dir.getFileName().toString()) && !dir.equals(root)
              ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          if (file.toString().endsWith(".md") && attributes.isRegularFile()) {
            pages.add(file);
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    pages.sort(null);
    return pages;
  }

  /** The broken links of one page, each as {@code file:line: target: why}. */
  private List<String> check(Path page) {
    List<String> broken = new ArrayList<>();
    List<String> lines = prose(page);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).replaceAll("`+[^`]*`+", "``");
      List<String> targets = new ArrayList<>();
      Matcher inline = INLINE.matcher(line);
      while (inline.find()) {
        targets.add(inline.group(1));
      }
      Matcher definition = DEFINITION.matcher(line);
      if (definition.matches()) {
        targets.add(definition.group(1));
      }
      for (String target : targets) {
        if (SCHEME.matcher(target).find()) {
          continue;
        }
        links++;
        String why = resolve(page, target);
        if (why != null) {
          broken.add(root.relativize(page) + ":" + (i + 1) + ": " + target + ": " + why);
        }
      }
    }
    return broken;
  }

  /** Null when the target resolves, else why not. */
  private String resolve(Path page, String target) {
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : URLDecoder.decode(target.substring(hash + 1), StandardCharsets.UTF_8);
    Path file = page;
    if (!path.isEmpty()) {
      String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
      file = (decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : page.getParent().resolve(decoded))
          .normalize();
      if (!Files.exists(file)) {
        return "no such file " + root.relativize(file);
      }
    }
    if (anchor == null || anchor.isEmpty()) {
      return null;
    }
    if (!file.toString().endsWith(".md") || Files.isDirectory(file)) {
      return null;
    }
    if (!anchors(file).contains(anchor)) {
      return "no heading with anchor #" + anchor + " in " + root.relativize(file);
    }
    return null;
  }

  /** The anchors GitHub gives a page: its headings' slugs (numbered when repeated) and explicit ones. */
  private Set<String> anchors(Path file) {
    return anchors.computeIfAbsent(file, f -> {
      Set<String> found = new HashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      for (String line : prose(f)) {
        Matcher heading = HEADING.matcher(line);
        if (heading.matches()) {
          String slug = slug(heading.group(2));
          int n = seen.merge(slug, 1, Integer::sum) - 1;
          found.add(n == 0 ? slug : slug + "-" + n);
        }
        Matcher html = HTML_ANCHOR.matcher(line);
        while (html.find()) {
          found.add(html.group(1));
        }
      }
      return found;
    });
  }

  /** GitHub's anchor of a heading: its text, links reduced to their words, lower case, punctuation dropped. */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
    StringBuilder slug = new StringBuilder();
    for (int cp : text.toLowerCase(Locale.ROOT).codePoints().toArray()) {
      if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
        slug.appendCodePoint(cp);
      } else if (cp == ' ') {
        slug.append('-');
      }
    }
    return slug.toString();
  }

  /** The page's lines with code blocks blanked (line numbers kept). */
  private static List<String> prose(Path page) {
    List<String> lines;
    try {
      lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> prose = new ArrayList<>(lines.size());
    String fence = null;
    boolean previousBlank = true;
    boolean inIndentedCode = false;
    for (String line : lines) {
      String stripped = line.stripLeading();
      if (fence == null && (stripped.startsWith("```") || stripped.startsWith("~~~"))) {
        fence = stripped.substring(0, 3);
        prose.add("");
        continue;
      }
      if (fence != null) {
        if (stripped.startsWith(fence)) {
          fence = null;
        }
        prose.add("");
        continue;
      }
      boolean blank = line.isBlank();
      boolean indented = line.startsWith("    ") || line.startsWith("\t");
      inIndentedCode = indented && (previousBlank || inIndentedCode) && !stripped.startsWith("- ")
          && !stripped.startsWith("* ");
      if (!blank && !indented) {
        inIndentedCode = false;
      }
      previousBlank = blank;
      prose.add(inIndentedCode ? "" : line);
    }
    return prose;
  }
}
