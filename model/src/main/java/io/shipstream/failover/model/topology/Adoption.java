package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether a group that has never recorded an active site can be adopted, and with which primary:
 * the first decision the watcher makes about a running group that is applied with no status. Pure,
 * like {@link TopologyMatrix}: the caller passes the latest poll of each site and acts on the
 * {@link Decision}.
 *
 * <pre>
 * | # | condition                                                          | decision                        |
 * |---|--------------------------------------------------------------------|---------------------------------|
 * | 1 | a site has not been polled yet                                      | Wait                            |
 * | 2 | no primary-candidate answers                                        | Ambiguous(NoPrimaryCandidate)   |
 * | 3 | a dr-only or read-only site is writable                             | Ambiguous(NonPromotableWritable)|
 * | 4 | two or more primary-candidates are writable                         | Ambiguous(SeveralWritable)      |
 * | 5 | exactly one primary-candidate p is writable                         | Adopt(p)                        |
 * | 6 | none writable: exactly one primary-candidate p replicates from      | Adopt(p), when every other      |
 * |   |   nobody, every other answering server replicates from p, and p's   |   answering server replicates   |
 * |   |   GTID set holds each of theirs (no errant transactions)            |   from p and p holds its GTIDs  |
 * | 7 | anything else                                                       | Ambiguous(NoUnambiguousPrimary) |
 * </pre>
 *
 * <p>Why so strict: adopting records {@code status.activeSite}, and from then on every sidecar
 * fences every server but that one's. A wrong guess would stop the application's writes or make
 * a stale replica the primary, so whatever is not unambiguous is for a human, who names the
 * primary with the adopt annotation ({@link #named}). Nothing is fenced before adoption, not even
 * a writable dr-only site: it is reported.
 */
public final class Adoption {
  private Adoption() {}

  /** What to do about a group with no recorded active site. */
  public sealed interface Decision permits Adopt, Ambiguous, Wait {}

  /** Record {@code site} as the active site. */
  public record Adopt(String site, String reason) implements Decision {}

  /** A human must name the primary; {@code cause} is the condition's reason. */
  public record Ambiguous(String cause, String reason) implements Decision {}

  /** Not every site has been polled yet. */
  public record Wait(String reason) implements Decision {}

  /**
   * One site's latest poll as adoption needs it: {@code replicatesFrom} is the site its server
   * replicates from (a configured replication source that is another site's server), or null.
   */
  public record Seen(Probe probe, String replicatesFrom) {
    public Seen {
      Objects.requireNonNull(probe, "probe");
    }
  }

  /** The annotation by which a human names the primary of a group that cannot be adopted on its own. */
  public static final String ANNOTATION = Annotations.ADOPT;

  /**
   * Whether a group has never recorded an active site: no status, or one that names neither an
   * active site nor a failover target. Until then the matrix must not act, the watcher adopts, and
   * the sidecars are told so rather than nothing, so that none fences the running primary.
   */
  public static boolean neverActive(MysqlFailoverGroupStatus status) {
    return status == null || status.activeSite() == null && status.lastFailoverTarget() == null;
  }

  public static Decision decide(GroupConfig config, Map<String, Seen> latest) {
    List<String> unpolled = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      if (!latest.containsKey(site.name())) {
        unpolled.add(site.name());
      }
    }
    if (!unpolled.isEmpty()) {
      return new Wait("not polled yet: " + String.join(", ", unpolled));
    }
    List<String> candidatesAnswering = new ArrayList<>();
    List<String> writableCandidates = new ArrayList<>();
    List<String> writableOthers = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      Probe p = latest.get(site.name()).probe();
      if (!p.reachable()) {
        continue;
      }
      if (site.isPrimaryCandidate()) {
        candidatesAnswering.add(site.name());
      }
      if (!p.readOnly()) {
        (site.isPrimaryCandidate() ? writableCandidates : writableOthers).add(site.name());
      }
    }
    if (candidatesAnswering.isEmpty()) {
      return new Ambiguous("NoPrimaryCandidate", "no primary-candidate site answers");
    }
    if (!writableOthers.isEmpty()) {
      return new Ambiguous("NonPromotableWritable", "site(s) " + String.join(", ", writableOthers)
          + " may never be primary (dr-only or read-only) but are writable; make them read-only"
          + (writableCandidates.size() == 1 ? " (the primary then is " + writableCandidates.get(0) + ")" : ""));
    }
    if (writableCandidates.size() > 1) {
      return new Ambiguous("SeveralWritable", "sites " + String.join(" and ", writableCandidates)
          + " are both writable; make all but the primary read-only, or name it");
    }
    if (writableCandidates.size() == 1) {
      String p = writableCandidates.get(0);
      return new Adopt(p, p + " is the only writable server and every other site that answers is read-only");
    }
    return soleSource(config, latest, candidatesAnswering);
  }

  /** Row 6: every server read-only (servers that start read-only), one source all others follow. */
  private static Decision soleSource(GroupConfig config, Map<String, Seen> latest, List<String> candidates) {
    List<String> sources = candidates.stream().filter(s -> latest.get(s).replicatesFrom() == null).toList();
    if (sources.size() != 1) {
      return new Ambiguous("NoUnambiguousPrimary", "every server is read-only and "
          + (sources.isEmpty() ? "every primary-candidate replicates from another"
              : "primary-candidates " + String.join(" and ", sources) + " replicate from nobody")
          + "; name the primary");
    }
    String source = sources.get(0);
    GtidSet sourceSet = parse(latest.get(source).probe().gtidExecuted());
    for (SiteSpec site : config.sites()) {
      Seen seen = latest.get(site.name());
      if (site.name().equals(source) || !seen.probe().reachable()) {
        continue;
      }
      if (!source.equals(seen.replicatesFrom())) {
        return new Ambiguous("NoUnambiguousPrimary", "every server is read-only, and " + site.name()
            + " does not replicate from " + source + ", the only primary-candidate that replicates from nobody"
            + "; name the primary");
      }
      GtidSet theirs = parse(seen.probe().gtidExecuted());
      if (sourceSet == null || theirs == null) {
        return new Ambiguous("NoUnambiguousPrimary", "the GTID sets of " + source + " and " + site.name()
            + " cannot be read or compared; name the primary");
      }
      GtidSet errant;
      try {
        errant = GtidHistory.missing(sourceSet, theirs);
      } catch (IllegalArgumentException e) {
        return new Ambiguous("NoUnambiguousPrimary", "the GTID sets of " + source + " and " + site.name()
            + " are of different flavors; name the primary");
      }
      if (!errant.isEmpty()) {
        return new Ambiguous("DivergentGtid", site.name() + " holds " + errant + ", which " + source
            + " lacks (errant transactions); reconcile them and name the primary");
      }
    }
    return new Adopt(source, "every server is read-only, and " + source
        + " replicates from nobody while every other server that answers replicates from it and holds nothing it"
        + " lacks");
  }

  /**
   * A human named the primary with the adopt annotation: checked like a planned request. Null
   * when it may be adopted; otherwise why not.
   */
  public static String named(GroupConfig config, String site, Map<String, Seen> latest) {
    if (site == null || site.isBlank()) {
      return "the " + ANNOTATION + " annotation names no site";
    }
    SiteSpec spec = config.site(site.strip()).orElse(null);
    if (spec == null) {
      return "the " + ANNOTATION + " annotation names '" + site + "', which is not a site of the group";
    }
    if (!spec.isPrimaryCandidate()) {
      return "the " + ANNOTATION + " annotation names " + site + ", which is " + spec.role()
          + " and may never be primary";
    }
    Seen seen = latest.get(spec.name());
    if (seen == null || !seen.probe().reachable()) {
      return "the " + ANNOTATION + " annotation names " + site + ", whose server does not answer";
    }
    return null;
  }

  private static GtidSet parse(String text) {
    if (text == null) {
      return null;
    }
    try {
      return GtidSet.parse(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
