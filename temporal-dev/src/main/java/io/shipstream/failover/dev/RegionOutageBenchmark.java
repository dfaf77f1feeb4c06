package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.shipstream.failover.dev.RegionStack.DarkRun;
import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * N outages of the primary's region on the region stack ({@link RegionStack}: iad, pdx and dr-only
 * dr each a region, the control plane in a fourth) with the spec's default knobs (polls 2 s x 3,
 * lease 20 s, peer check 5 s): asynchronous replication, then semi-sync {@code required} with a
 * 40 s timeout (past lease + peer check). Each run cuts the primary's region off while a writer
 * outside it follows the primary Service and one inside writes to its own server; once the other
 * candidate took writes the region comes back, and the old primary rejoins or, held with
 * divergentGtid, is put back by hand. Prints median, p90 and worst of dark to the first write the
 * new primary acknowledged, dark to the isolated primary read-only, acknowledged writes lost, and
 * where the time went; writes every run as JSON. Numbers are printed, never asserted.
 *
 * <pre>./temporal-dev/benchmark region-outage [N] [--flavor mysql,mariadb]</pre>
 */
public final class RegionOutageBenchmark {
  private RegionOutageBenchmark() {}

  public static void main(String[] args) throws IOException {
    PlannedFailoverBenchmark.Args parsed;
    try {
      parsed = PlannedFailoverBenchmark.Args.parse(args.length == 0 ? new String[] {"3"} : args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + " (./temporal-dev/benchmark --help shows every option)");
      System.exit(2);
      return;
    }
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark-region"));
    Path json = Path.of(System.getProperty("benchmark.json", "temporal-dev/target/region-outage-results.json"));
    Map<String, Object> results = new LinkedHashMap<>();
    List<String> tables = new ArrayList<>();
    for (Flavor flavor : parsed.flavors()) {
      FileTrees.delete(work);
      try (RegionStack stack = RegionStack.start(work, flavor, RegionStack.Knobs.defaults())) {
        stack.normalise();
        List<DarkRun> async = runs(stack, parsed.n(), flavor, "async");
        stack.semiSyncRequired(true);
        List<DarkRun> semi = runs(stack, parsed.n(), flavor, "semi-sync required");
        tables.add(table(async, flavor, "asynchronous replication"));
        tables.add(table(semi, flavor, "semi-sync required, timeout " + stack.knobs().semiSyncTimeout()));
        results.put(flavor.name().toLowerCase(java.util.Locale.ROOT), Map.of("async", async, "semiSyncRequired", semi));
      } finally {
        FileTrees.delete(work);
      }
    }
    System.out.println();
    tables.forEach(System.out::println);
    Files.createDirectories(json.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(json.toFile(), Map.of("regionOutage", results, "loadAverage", loadAverage()));
    System.out.println("every run as JSON: " + json.toAbsolutePath());
  }

  private static List<DarkRun> runs(RegionStack stack, int n, Flavor flavor, String mode) {
    List<DarkRun> runs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      DarkRun r = stack.primaryRegionDark(true);
      stack.normalise();
      runs.add(r);
      System.out.printf("%s %s run %d %s: dark->first write on %s %.0f ms, dark->%s read-only %.0f ms, acked %d,"
          + " lost %d (on no server %d), in doubt %d, in-region writes acked after the fence %d, most writable %d;"
          + " on return %s%n", flavor, mode, i + 1, r.outcome(), r.to(), r.firstNewWriteMs(), r.from(), r.fenceMs(),
          r.acknowledged(), r.lost(), r.unaccounted(), r.inDoubt(), r.insideAckedAfterFence(), r.most(), r.returned());
    }
    return runs;
  }

  static String table(List<DarkRun> runs, Flavor flavor, String mode) {
    return String.format("region outage, %d runs, %s, 3 %s sites each its own region, control plane in a fourth,"
        + " spec defaults (pollInterval 2s, failureThreshold 3, lease 20s, peer check 5s), writers every 5 ms"
        + " outside and inside the dark region; load average %s%n", runs.size(), mode,
        BenchmarkTable.servers(flavor), loadAverage())
        + BenchmarkTable.header()
        + BenchmarkTable.row("dark -> first write acknowledged by the new primary, writer outside (ms)",
            runs.stream().map(DarkRun::firstNewWriteMs).toList())
        + BenchmarkTable.row("dark -> the isolated primary read-only (ms)",
            runs.stream().map(DarkRun::fenceMs).toList())
        + BenchmarkTable.row("the old primary's wait counted from its lease's last renewal, before the naming (ms)",
            runs.stream().map(DarkRun::anchoredMs).toList())
        + BenchmarkTable.row("acknowledged writes lost (not on the new primary)",
            runs.stream().map(r -> (double) r.lost()).toList())
        + BenchmarkTable.row("commits in doubt (on the old primary only, never acknowledged)",
            runs.stream().map(r -> (double) r.inDoubt()).toList())
        + String.format("acknowledged writes lost in all: %d; on no server: %d; two writable in any sample: %s%n",
            runs.stream().mapToLong(DarkRun::lost).sum(), runs.stream().mapToLong(DarkRun::unaccounted).sum(),
            runs.stream().anyMatch(r -> r.most() > 1))
        + EmergencyFailoverBenchmark.breakdown(runs.stream().map(DarkRun::breakdown).toList(), "dark");
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().replaceAll("^(\\S+ \\S+ \\S+).*", "$1");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
