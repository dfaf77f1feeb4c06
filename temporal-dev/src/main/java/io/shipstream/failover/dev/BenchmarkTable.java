package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.Flavor;
import java.util.ArrayList;
import java.util.List;

/** The benchmarks' Markdown table: one row per measure, with its median, p90 and worst. */
final class BenchmarkTable {
  private BenchmarkTable() {}

  /** How a table's caption names the servers of {@code flavor}. */
  static String servers(Flavor flavor) {
    return flavor == Flavor.MYSQL ? "MySQL 9.7" : "MariaDB";
  }

  /**
   * The flavors named by {@code --flavor mysql,mariadb}; with none given ({@code value} null) both,
   * MariaDB first, unless MySQL cannot run here, which is then said on stderr. A flavor asked for by
   * name that cannot run here is an error with the reason.
   */
  static List<Flavor> flavors(String value) {
    if (value == null) {
      List<Flavor> both = new ArrayList<>(List.of(Flavor.MARIADB));
      Flavor.MYSQL.unavailableReason().ifPresentOrElse(
          reason -> System.err.println("MySQL left out (--flavor mariadb to say so): " + reason),
          () -> both.add(Flavor.MYSQL));
      return both;
    }
    List<Flavor> flavors = new ArrayList<>();
    for (String name : value.split(",")) {
      Flavor flavor;
      try {
        flavor = Flavor.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown flavor '" + name + "': use mysql, mariadb or mysql,mariadb");
      }
      flavor.unavailableReason().ifPresent(reason -> {
        throw new IllegalStateException("--flavor mysql needs MySQL 9.7 from the root file system"
            + " scripts/prerequisites makes as root, and it cannot run here: " + reason);
      });
      if (!flavors.contains(flavor)) {
        flavors.add(flavor);
      }
    }
    return flavors;
  }

  static String header() {
    return "| measure | median | p90 | worst |\n|---|---|---|---|\n";
  }

  static String row(String name, List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return String.format("| %s | %.0f | %.0f | %.0f |%n", name, median(sorted), p90(sorted),
        sorted.get(sorted.size() - 1));
  }

  static double median(List<Double> sorted) {
    return sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
        : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
  }

  /** The nearest-rank 90th percentile. */
  static double p90(List<Double> sorted) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.9) - 1));
  }

  /** The nearest-rank percentile {@code p} (0.5, 0.99) of sorted values; NaN when there are none. */
  static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * p) - 1)));
  }

  /** A Markdown table of the given columns and rows of cells. */
  static String markdown(List<String> columns, List<List<String>> rows) {
    StringBuilder t = new StringBuilder("| ").append(String.join(" | ", columns)).append(" |\n|");
    columns.forEach(c -> t.append("---|"));
    t.append('\n');
    rows.forEach(r -> t.append("| ").append(String.join(" | ", r)).append(" |\n"));
    return t.toString();
  }
}
