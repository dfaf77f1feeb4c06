package io.shipstream.failover.model.gtid;

import java.util.ArrayList;
import java.util.List;

/**
 * Exact set arithmetic on sorted, disjoint, non-adjacent interval lists, so that a range such as
 * {@code 1-9182731} costs one object whatever its size. Every method takes and returns lists in
 * that normal form; {@link #normalize} produces it from anything.
 */
final class GnoIntervals {
  private GnoIntervals() {}

  /** Sorts and merges overlapping or touching intervals: {@code 1-3,4-5,2} becomes {@code 1-5}. */
  static List<GnoInterval> normalize(List<GnoInterval> intervals) {
    List<GnoInterval> sorted = new ArrayList<>(intervals);
    sorted.sort(null);
    List<GnoInterval> out = new ArrayList<>();
    for (GnoInterval next : sorted) {
      if (!out.isEmpty()) {
        GnoInterval last = out.get(out.size() - 1);
        // last.end() + 1 cannot be compared safely when last.end() is Long.MAX_VALUE.
        if (last.end() == Long.MAX_VALUE || next.start() <= last.end() + 1) {
          out.set(out.size() - 1, new GnoInterval(last.start(), Math.max(last.end(), next.end())));
          continue;
        }
      }
      out.add(next);
    }
    return List.copyOf(out);
  }

  /** Whether every number of {@code inner} is in {@code outer}. */
  static boolean containsAll(List<GnoInterval> outer, List<GnoInterval> inner) {
    int o = 0;
    for (GnoInterval in : inner) {
      // Intervals in normal form never touch, so one outer interval must hold the whole inner one.
      while (o < outer.size() && outer.get(o).end() < in.start()) {
        o++;
      }
      if (o == outer.size() || outer.get(o).start() > in.start() || outer.get(o).end() < in.end()) {
        return false;
      }
    }
    return true;
  }

  /** The numbers of {@code from} that are not in {@code remove}. */
  static List<GnoInterval> subtract(List<GnoInterval> from, List<GnoInterval> remove) {
    List<GnoInterval> out = new ArrayList<>();
    int r = 0;
    for (GnoInterval interval : from) {
      long start = interval.start();
      long end = interval.end();
      while (r < remove.size() && remove.get(r).end() < start) {
        r++;
      }
      int k = r;
      boolean exhausted = false;
      while (k < remove.size() && remove.get(k).start() <= end) {
        GnoInterval cut = remove.get(k);
        if (cut.start() > start) {
          out.add(new GnoInterval(start, cut.start() - 1));
        }
        if (cut.end() >= end) {
          exhausted = true;
          break;
        }
        start = cut.end() + 1;
        k++;
      }
      if (!exhausted) {
        out.add(new GnoInterval(start, end));
      }
    }
    return List.copyOf(out);
  }

  /** The number of transactions, saturating at {@link Long#MAX_VALUE} rather than wrapping. */
  static long count(List<GnoInterval> intervals) {
    long total = 0;
    for (GnoInterval i : intervals) {
      total = saturatedAdd(total, i.count());
    }
    return total;
  }

  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
