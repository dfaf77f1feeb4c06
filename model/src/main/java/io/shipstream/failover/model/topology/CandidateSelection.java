package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GnoInterval;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.MariaDbGtid;
import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import io.shipstream.failover.model.gtid.MysqlGtidSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Which replica to promote when the primary is gone: the one that holds every transaction any
 * other candidate holds, so that promoting it loses nothing a surviving replica already has.
 *
 * <p>The exact rule, in order:
 * <ol>
 *   <li><b>Errant transactions.</b> A candidate whose own server (its {@link Candidate#serverId})
 *       wrote transactions that no other known set holds has taken writes as a replica: promoting
 *       it would publish history the old primary never had. Such a candidate is <em>never
 *       chosen</em>. The reference sets are the other candidates' and the {@code otherKnownSets}
 *       (the failed primary's last known set, other replicas). Per notation:
 *       <ul>
 *         <li>MySQL: the intervals under the candidate's own {@code server_uuid} (any tag) that are in
 *             no reference set. Transactions it wrote while it was primary are in the others' sets,
 *             so they do not count.</li>
 *         <li>MariaDB: a domain whose newest GTID the candidate wrote itself ({@code d-<own id>-n})
 *             and that no reference set includes in the sense of {@link GtidHistory}. Such a GTID
 *             beyond everyone's position is "a higher seqno of its own server id"; one at a seqno
 *             another set reached through a different server is "a different server id at the
 *             same seqno".</li>
 *       </ul>
 *       Without a server id the check is skipped for that candidate and only rule 2 protects.</li>
 *   <li><b>Containment.</b> The chosen candidate must {@link GtidHistory#includes include} the set
 *       of every other candidate (of an errant one, its set without the errant transactions: those
 *       are to be thrown away, the rest must not be). If no non-errant candidate does, the sets are
 *       divergent: the result is {@link Divergent}, naming the sites and what one has that the
 *       other lacks, and the failover is blocked for a human to decide.</li>
 *   <li><b>Ties.</b> Candidates that include each other hold the same history; among them the first
 *       in {@code sitePriorities} wins, then the first in declared order ({@code spec.sites}).</li>
 * </ol>
 */
public final class CandidateSelection {
  private CandidateSelection() {}

  /**
   * A reachable, read-only primary-candidate and its executed GTID set.
   *
   * @param serverId {@code @@server_uuid} (MySQL) or {@code @@server_id} (MariaDB); null if unknown
   */
  public record Candidate(String site, GtidSet gtid, String serverId) {
    public Candidate {
      Objects.requireNonNull(site, "site");
      Objects.requireNonNull(gtid, "gtid");
    }
  }

  /** The outcome of {@link #choose}. */
  public sealed interface Choice permits Chosen, Divergent, None {
    String reason();
  }

  /**
   * Promote {@code site}. {@code errantGtids} maps each candidate passed over for errant
   * transactions to those transactions (empty when none), for {@code status.sites[].divergentGtid}.
   */
  public record Chosen(String site, String reason, Map<String, String> errantGtids) implements Choice {}

  /** No candidate holds everyone's history: block, and tell the human why. */
  public record Divergent(String reason, Map<String, String> errantGtids) implements Choice {}

  /** There was nothing to choose from. */
  public record None(String reason) implements Choice {}

  /**
   * Why a replica's SQL thread keeps it from being promoted, or null when it does not. The IO thread
   * is always in error once the primary is gone, so only the SQL thread is judged: one that stopped
   * on an error (it has a last SQL error) cannot apply what its relay log holds, and the relay-log
   * drain before the promotion would stop on the same error. One stopped without an error (a DBA's
   * STOP) is no obstacle: the drain applies the relay log whatever the thread's state. Unknown
   * (null) counts as healthy here; the emergency runbook's inspection is the last guard.
   *
   * @param sqlRunning whether the SQL thread runs; null when unknown
   * @param lastSqlError its last error; null or blank when none
   */
  public static String sqlThreadProblem(String site, Boolean sqlRunning, String lastSqlError) {
    if (lastSqlError == null || lastSqlError.isBlank()) {
      return null;
    }
    return "the SQL thread of site '" + site + "' " + (Boolean.TRUE.equals(sqlRunning) ? "runs with" : "stopped on")
        + " an error: " + lastSqlError.strip();
  }

  /** {@link #choose(List, List, List, List)} with no reference sets besides the candidates'. */
  public static Choice choose(List<Candidate> candidates, List<String> sitePriorities, List<String> declaredOrder) {
    return choose(candidates, List.of(), sitePriorities, declaredOrder);
  }

  /**
   * Chooses the candidate to promote by the rule of the class comment.
   *
   * @param candidates the reachable read-only primary-candidates
   * @param otherKnownSets more history to judge errant transactions against: the failed primary's last
   *     known set, other replicas' sets
   * @param sitePriorities {@code splitBrainPolicy.sitePriorities}, highest first
   * @param declaredOrder the site names in {@code spec.sites} order
   * @throws IllegalArgumentException when MySQL and MariaDB sets are mixed
   */
  public static Choice choose(List<Candidate> candidates, List<GtidSet> otherKnownSets, List<String> sitePriorities,
      List<String> declaredOrder) {
    if (candidates.isEmpty()) {
      return new None("no primary-candidate is reachable and read-only");
    }
    Map<String, GtidSet> errant = new LinkedHashMap<>();
    Map<String, GtidSet> history = new LinkedHashMap<>();
    for (Candidate c : candidates) {
      List<GtidSet> references = new ArrayList<>(otherKnownSets);
      candidates.stream().filter(o -> o != c).forEach(o -> references.add(o.gtid()));
      GtidSet e = errantTransactions(c, references);
      if (!e.isEmpty()) {
        errant.put(c.site(), e);
      }
      history.put(c.site(), withoutErrant(c, e));
    }
    Map<String, String> errantText = errant.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().toString(), (x, y) -> x, LinkedHashMap::new));
    List<Candidate> eligible = candidates.stream().filter(c -> !errant.containsKey(c.site()))
        .sorted(rank(sitePriorities, declaredOrder)).toList();
    if (eligible.isEmpty()) {
      return new Divergent("every candidate holds errant transactions: " + describe(errantText), errantText);
    }
    List<Candidate> winners = eligible.stream()
        .filter(c -> candidates.stream().allMatch(o -> o == c || GtidHistory.includes(c.gtid(), history.get(o.site()))))
        .toList();
    if (winners.isEmpty()) {
      return new Divergent(divergence(eligible, candidates, history, errantText), errantText);
    }
    Candidate chosen = winners.get(0);
    StringBuilder why =
        new StringBuilder("site '" + chosen.site() + "' holds every transaction of the other candidates");
    if (winners.size() > 1) {
      String tied = winners.stream().skip(1).map(c -> "'" + c.site() + "'").collect(Collectors.joining(", "));
      why.append("; tied with ").append(tied).append(", chosen by ")
          .append(sitePriorities.contains(chosen.site()) ? "splitBrainPolicy.sitePriorities" : "declared order");
    }
    if (!errantText.isEmpty()) {
      why.append("; passed over for errant transactions: ").append(describe(errantText));
    }
    return new Chosen(chosen.site(), why.toString(), errantText);
  }

  /**
   * The transactions {@code candidate}'s own server wrote that no reference set holds (rule 1 of the
   * class comment); empty when there are none or the server id is unknown.
   */
  public static GtidSet errantTransactions(Candidate candidate, List<GtidSet> references) {
    String id = candidate.serverId();
    if (id == null || id.isBlank() || candidate.gtid().isEmpty()) {
      return MysqlGtidSet.EMPTY;
    }
    if (candidate.gtid() instanceof MysqlGtidSet mysql) {
      GtidSet rest = ownTransactions(mysql, id.strip().toLowerCase(Locale.ROOT));
      for (GtidSet r : references) {
        rest = GtidHistory.missing(r, rest);
      }
      return rest;
    }
    MariaDbGtidSet maria = (MariaDbGtidSet) candidate.gtid();
    long own;
    try {
      own = Long.parseLong(id.strip());
    } catch (NumberFormatException e) {
      return MariaDbGtidSet.EMPTY; // not a MariaDB server id: treated as unknown, as documented
    }
    List<String> parts = new ArrayList<>();
    for (MariaDbGtid newest : GtidHistory.newestPerDomain(maria).values()) {
      if (newest.serverId() != own) {
        continue;
      }
      MariaDbGtidSet single = MariaDbGtidSet.of(newest);
      if (references.stream().anyMatch(r -> GtidHistory.includes(r, single))) {
        continue;
      }
      // The errant range starts after the furthest position any reference reached below it.
      long reached = 0;
      for (GtidSet r : references) {
        if (r instanceof MariaDbGtidSet mr) {
          reached =
              Math.max(reached, Math.min(newest.seqno() - 1, mr.maxSeqnoByDomain().getOrDefault(newest.domain(), 0L)));
        }
      }
      parts.add(newest.domain() + "-" + own + "-" + (reached + 1) + ".." + newest.seqno());
    }
    return MariaDbGtidSet.parse(String.join(",", parts));
  }

  /** The candidate's set with its errant transactions taken out: what the chosen one must still include. */
  private static GtidSet withoutErrant(Candidate c, GtidSet errant) {
    if (errant.isEmpty()) {
      return c.gtid();
    }
    if (c.gtid() instanceof MysqlGtidSet) {
      return c.gtid().subtract(errant);
    }
    // MariaDB lists one GTID per server and domain, so dropping the errant writer's entry of each
    // errant domain leaves the positions the candidate reached through replication.
    List<MariaDbGtid> errantGtids = ((MariaDbGtidSet) errant).gtids();
    String kept = ((MariaDbGtidSet) c.gtid()).gtids().stream()
        .filter(g -> errantGtids.stream().noneMatch(e -> e.domain() == g.domain() && e.serverId() == g.serverId()))
        .map(MariaDbGtid::toString).collect(Collectors.joining(","));
    return MariaDbGtidSet.parse(kept);
  }

  private static GtidSet ownTransactions(MysqlGtidSet set, String uuid) {
    List<String> parts = new ArrayList<>();
    set.intervalsBySource().forEach((source, intervals) -> {
      if (source.equals(uuid) || source.startsWith(uuid + ":")) {
        parts.add(source + ":" + intervals.stream().map(GnoInterval::toString).collect(Collectors.joining(":")));
      }
    });
    return MysqlGtidSet.parse(String.join(",", parts));
  }

  /** Explains why the best-ranked eligible candidate cannot be chosen, naming both sides of the first gap. */
  private static String divergence(List<Candidate> eligible, List<Candidate> all, Map<String, GtidSet> history,
      Map<String, String> errantText) {
    Candidate best = eligible.stream().max(Comparator.comparingLong((Candidate c) -> c.gtid().count())
        .thenComparing(eligible::indexOf, Comparator.reverseOrder())).orElseThrow();
    Candidate other = all.stream()
        .filter(o -> o != best && !GtidHistory.includes(best.gtid(), history.get(o.site()))).findFirst().orElseThrow();
    StringBuilder why = new StringBuilder("divergent candidates: site '" + best.site() + "' lacks "
        + GtidHistory.missing(best.gtid(), history.get(other.site())) + " that site '" + other.site() + "' has");
    if (errantText.containsKey(other.site())) {
      why.append(", and '").append(other.site()).append("' cannot be chosen either: it holds errant transactions ")
          .append(errantText.get(other.site()));
    } else {
      GtidSet reverse = GtidHistory.missing(other.gtid(), best.gtid());
      if (!reverse.isEmpty()) {
        why.append(", while '").append(other.site()).append("' lacks ").append(reverse).append(" that '")
            .append(best.site()).append("' has");
      }
    }
    if (!errantText.isEmpty() && !(errantText.size() == 1 && errantText.containsKey(other.site()))) {
      why.append("; errant transactions: ").append(describe(errantText));
    }
    return why.toString();
  }

  private static Comparator<Candidate> rank(List<String> sitePriorities, List<String> declaredOrder) {
    return Comparator.comparingInt((Candidate c) -> indexOrLast(sitePriorities, c.site()))
        .thenComparingInt(c -> indexOrLast(declaredOrder, c.site()));
  }

  private static int indexOrLast(List<String> list, String site) {
    int i = list.indexOf(site);
    return i < 0 ? Integer.MAX_VALUE : i;
  }

  private static String describe(Map<String, String> errant) {
    return errant.entrySet().stream().map(e -> "site '" + e.getKey() + "' has " + e.getValue())
        .collect(Collectors.joining(", "));
  }
}
