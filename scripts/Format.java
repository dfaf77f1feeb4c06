import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.ToolFactory;
import org.eclipse.jdt.core.compiler.IScanner;
import org.eclipse.jdt.core.compiler.ITerminalSymbols;
import org.eclipse.jdt.core.compiler.InvalidInputException;
import org.eclipse.jdt.core.formatter.CodeFormatter;
import org.eclipse.jdt.core.formatter.DefaultCodeFormatterConstants;
import org.eclipse.jface.text.BadLocationException;
import org.eclipse.jface.text.Document;
import org.eclipse.text.edits.MultiTextEdit;
import org.eclipse.text.edits.ReplaceEdit;
import org.eclipse.text.edits.TextEdit;

/**
 * The repository's Java formatter: the Eclipse JDT formatter (Eclipse defaults, 2-space indentation,
 * 4-space continuation, 120 columns, existing line breaks kept, comments left as written) plus a sorted
 * import block (static imports, a blank line, the rest; each group in ASCII order).
 *
 * <p>Run as a single-file program on the JDT classpath ({@code scripts/format} builds it):
 * {@code java -cp <jdt> scripts/Format.java [--check] [--options] [paths...]}. Without paths it formats
 * every {@code *.java} under a {@code src/main/java} or {@code src/test/java} of the current directory
 * (skipping {@code target/} and hidden directories). {@code --check} rewrites nothing: it prints each file
 * that would change with its first differing line and exits 1. {@code --options} prints the formatter
 * options that differ from Eclipse's defaults.
 *
 * <p>A file is only ever rewritten when its tokens are unchanged: the same token text in the same order
 * (comments compared line by line without their indentation), so string literals, text blocks and
 * comments cannot change; a file the formatter cannot parse is reported and left alone.
 */
public final class Format {
  private static final Pattern IMPORT = Pattern.compile("import\\s+(static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;\\s*");
  private static final Set<String> SKIPPED_DIRS = Set.of("target", "node_modules");

  /** The options this repository sets, on top of Eclipse's defaults. */
  static Map<String, String> overrides() {
    String p = "org.eclipse.jdt.core.formatter.";
    Map<String, String> o = new LinkedHashMap<>();
    o.put(JavaCore.COMPILER_SOURCE, "17");
    o.put(JavaCore.COMPILER_COMPLIANCE, "17");
    o.put(JavaCore.COMPILER_CODEGEN_TARGET_PLATFORM, "17");
    // Indentation, line length, wrapping and comments: key=value, each key below p.
    for (String setting : """
        tabulation.char=space
        tabulation.size=2
        indentation.size=2
        continuation_indentation=2
        continuation_indentation_for_array_initializer=2
        lineSplit=120
        comment.line_length=120
        join_wrapped_lines=false
        join_lines_in_comments=false
        comment.format_javadoc_comments=false
        comment.format_block_comments=false
        comment.format_line_comments=false
        comment.format_header=false
        """.lines().toList()) {
      int equals = setting.indexOf('=');
      o.put(p + setting.substring(0, equals), setting.substring(equals + 1));
    }
    o.put(p + "text_block_indentation", "3"); // Alignment.M_INDENT_PRESERVE: text blocks as written
    for (String kind : List.of("type_declaration", "anonymous_type_declaration", "enum_declaration",
        "enum_constant_declaration", "annotation_declaration", "record_declaration", "record_constructor",
        "method_body", "lambda_body_block", "if_then_body_block", "loop_body_block", "switch_body_block",
        "switch_case_with_arrow")) {
      o.put(p + "keep_" + kind + "_on_one_line", "one_line_preserve"); // as written: neither joined nor split
    }
    o.put(p + "keep_code_block_on_one_line", "one_line_if_empty"); // it has no one_line_preserve
    o.put(p + "insert_new_line_after_annotation_on_enum_constant", "do not insert");
    o.put(p + "blank_lines_before_new_chunk", "0");
    o.put(p + "indent_switchstatements_compare_to_switch", "true");
    o.put(p + "alignment_for_assignment", "16"); // wrap where necessary, so a break after '=' is kept
    o.put(p + "keep_then_statement_on_same_line", "true");
    o.put(p + "keep_simple_for_body_on_same_line", "true");
    o.put(p + "keep_simple_while_body_on_same_line", "true");
    o.put(p + "alignment_for_conditional_expression", "16"); // wrap where necessary, not every operand
    o.put(p + "insert_space_after_opening_brace_in_array_initializer", "do not insert");
    o.put(p + "insert_space_before_closing_brace_in_array_initializer", "do not insert");
    return o;
  }

  static Map<String, String> options() {
    Map<String, String> options = eclipseDefaults();
    options.putAll(overrides());
    return options;
  }

  @SuppressWarnings("unchecked") // a raw Map of String to String
  static Map<String, String> eclipseDefaults() {
    return new LinkedHashMap<String, String>(DefaultCodeFormatterConstants.getEclipseDefaultSettings());
  }

  public static void main(String[] args) throws IOException {
    boolean check = false;
    List<Path> roots = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals("--check")) {
        check = true;
      } else if (arg.equals("--options")) {
        Map<String, String> defaults = eclipseDefaults();
        overrides().forEach((k, v) -> System.out.println(k + "=" + v + "  (Eclipse default: " + defaults.get(k) + ")"));
        return;
      } else {
        roots.add(Path.of(arg));
      }
    }
    List<Path> files = new ArrayList<>();
    if (roots.isEmpty()) {
      collect(Path.of("."), files);
    } else {
      for (Path root : roots) {
        collect(root, files);
      }
    }
    CodeFormatter formatter = ToolFactory.createCodeFormatter(options(), ToolFactory.M_FORMAT_EXISTING);
    int changed = 0;
    int failed = 0;
    for (Path file : files) {
      String before = Files.readString(file, StandardCharsets.UTF_8);
      String after;
      try {
        after = format(formatter, before);
      } catch (IllegalStateException e) {
        System.err.println(file + ": left alone: " + e.getMessage());
        failed++;
        continue;
      }
      if (after.equals(before)) {
        continue;
      }
      changed++;
      if (check) {
        System.out.println(file + ":" + firstDifference(before, after));
      } else {
        Files.writeString(file, after, StandardCharsets.UTF_8);
      }
    }
    if (check && changed > 0) {
      System.out.println(changed + " file(s) not formatted: run scripts/format to fix");
    } else if (!check && changed > 0) {
      System.out.println("formatted " + changed + " of " + files.size() + " file(s)");
    }
    if (failed > 0) {
      System.err.println(failed + " file(s) could not be formatted");
    }
    System.exit(check && changed > 0 || failed > 0 ? 1 : 0);
  }

  /** Formats one source text; throws IllegalStateException when it cannot (or would change a token). */
  static String format(CodeFormatter formatter, String source) {
    String sorted = sortImports(source);
    TextEdit edit = formatter.format(CodeFormatter.K_COMPILATION_UNIT, sorted, 0, sorted.length(), 0, "\n");
    if (edit == null) {
      throw new IllegalStateException("the formatter cannot parse it");
    }
    Document document = new Document(sorted);
    try {
      keepLineBreaks(sorted, edit).apply(document);
    } catch (BadLocationException e) {
      throw new IllegalStateException("the formatter's edit does not apply: " + e.getMessage());
    }
    String formatted = document.get();
    List<String> expected = tokens(sorted);
    List<String> actual = tokens(formatted);
    if (!expected.equals(actual)) {
      int i = 0;
      while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) {
        i++;
      }
      throw new IllegalStateException("the formatter would change token " + i + ": "
          + (i < expected.size() ? expected.get(i) : "<end>") + " -> " + (i < actual.size() ? actual.get(i) : "<end>"));
    }
    return formatted;
  }

  /**
   * The formatter's edits less those that would join two lines: Eclipse keeps an existing break only at
   * the places its wrapping policies allow one, and joins, for instance, an annotation written above its
   * record component, or a lambda body written below its arrow.
   */
  static TextEdit keepLineBreaks(String source, TextEdit edit) {
    MultiTextEdit kept = new MultiTextEdit();
    List<ReplaceEdit> edits = new ArrayList<>();
    flatten(edit, edits);
    for (ReplaceEdit e : edits) {
      String replaced = source.substring(e.getOffset(), e.getOffset() + e.getLength());
      if (!(replaced.contains("\n") && !e.getText().contains("\n"))) {
        kept.addChild(new ReplaceEdit(e.getOffset(), e.getLength(), e.getText()));
      }
    }
    return kept;
  }

  private static void flatten(TextEdit edit, List<ReplaceEdit> into) {
    if (edit instanceof ReplaceEdit replace) {
      into.add(replace);
    } else if (edit instanceof MultiTextEdit) {
      for (TextEdit child : edit.getChildren()) {
        flatten(child, into);
      }
    } else {
      throw new IllegalStateException("unexpected edit " + edit);
    }
  }

  /**
   * The import block sorted: static imports first, then the others, each group in ASCII order without
   * duplicates, one blank line between the groups. A block holding anything but imports and blank lines
   * (a comment, say) is left as it is.
   */
  static String sortImports(String source) {
    String[] lines = source.split("\n", -1);
    int first = -1;
    int last = -1;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.startsWith("import ")) {
        if (first < 0) {
          first = i;
        }
        last = i;
      } else if (first >= 0 && !line.isEmpty()) {
        break;
      }
    }
    if (first < 0) {
      return source;
    }
    TreeSet<String> statics = new TreeSet<>();
    TreeSet<String> others = new TreeSet<>();
    for (int i = first; i <= last; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher m = IMPORT.matcher(line);
      if (!m.matches()) {
        return source;
      }
      (m.group(1) != null ? statics : others).add(m.group(2));
    }
    List<String> block = new ArrayList<>();
    statics.forEach(name -> block.add("import static " + name + ";"));
    if (!statics.isEmpty() && !others.isEmpty()) {
      block.add("");
    }
    others.forEach(name -> block.add("import " + name + ";"));
    List<String> result = new ArrayList<>(List.of(lines).subList(0, first));
    result.addAll(block);
    result.addAll(List.of(lines).subList(last + 1, lines.length));
    return String.join("\n", result);
  }

  /** The source's tokens, comments with each line's indentation and trailing blanks dropped. */
  static List<String> tokens(String source) {
    IScanner scanner = ToolFactory.createScanner(true, false, false, "17", "17");
    scanner.setSource(source.toCharArray());
    List<String> tokens = new ArrayList<>();
    try {
      for (int token = scanner.getNextToken(); token != ITerminalSymbols.TokenNameEOF; token = scanner.getNextToken()) {
        String text = new String(scanner.getCurrentTokenSource());
        if (token == ITerminalSymbols.TokenNameCOMMENT_BLOCK || token == ITerminalSymbols.TokenNameCOMMENT_JAVADOC
            || token == ITerminalSymbols.TokenNameCOMMENT_LINE) {
          StringBuilder comment = new StringBuilder();
          for (String line : text.split("\n", -1)) {
            comment.append(line.strip()).append('\n');
          }
          text = comment.toString();
        }
        tokens.add(text);
      }
    } catch (InvalidInputException e) {
      throw new IllegalStateException("the scanner cannot read it: " + e.getMessage());
    }
    return tokens;
  }

  private static String firstDifference(String before, String after) {
    String[] a = before.split("\n", -1);
    String[] b = after.split("\n", -1);
    int i = 0;
    while (i < Math.min(a.length, b.length) && a[i].equals(b[i])) {
      i++;
    }
    return (i + 1) + ": " + (i < a.length ? a[i].strip() : "<end of file>");
  }

  private static void collect(Path root, List<Path> files) throws IOException {
    if (Files.isRegularFile(root)) {
      files.add(root.normalize());
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        boolean hidden = name.startsWith(".") && !dir.equals(root);
        return hidden || SKIPPED_DIRS.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        String path = file.toString().replace('\\', '/');
        if (path.endsWith(".java") && (path.contains("/src/main/java/") || path.contains("/src/test/java/"))) {
          files.add(file.normalize());
        }
        return FileVisitResult.CONTINUE;
      }
    });
    files.sort(null);
  }

  private Format() {}
}
