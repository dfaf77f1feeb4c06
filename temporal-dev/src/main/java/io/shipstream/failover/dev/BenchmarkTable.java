package io.shipstream.failover.dev;

import java.util.List;

/** The benchmarks' Markdown table: one row per measure, with its median, p90 and worst. */
final class BenchmarkTable {
  private BenchmarkTable() {}

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
}
