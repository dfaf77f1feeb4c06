package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The value of {@code bloodraven.shipstream.io/fenced-sites}: the sites a DBA holds read-only, as
 * "fencing an instance" does in CloudNativePG and cloudnative-mysql. A fenced site is kept
 * read-only by the watcher (matrix row 1) and by its sidecar, leaves the replicas Service (role
 * label {@code fenced}) and is never a failover candidate (emergency, planned, drain). Fencing the
 * active site stops the group's writes on purpose: the watcher does not fail over from it, and
 * unfencing it makes it writable again.
 *
 * <p>The value is a comma-separated list of the spec's site names; empty (or no annotation) fences
 * nothing. It is read strictly: an unknown site, a repeated one or a malformed name refuses the
 * whole value, and the sites accepted before ({@code status.fencedSites}) stay as they were.
 *
 * <p>{@link #judge} is the pure decision of one evaluation, first matching row wins:
 *
 * <pre>
 * | # | situation                                            | outcome                                        |
 * |---|------------------------------------------------------|------------------------------------------------|
 * | 1 | the value is invalid                                 | Rejected(why): status.fencedSites unchanged    |
 * | 2 | the value names the sites already accepted           | Unchanged                                      |
 * | 3 | paused, and the value removes accepted sites         | Apply(accepted + added, removals held): a      |
 * |   |                                                      |   fence only makes things safer, an unfence is |
 * |   |                                                      |   an action, held like the others              |
 * | 4 | otherwise                                            | Apply(the value's sites); unfencing the active |
 * |   |                                                      |   site makes it writable again first           |
 * </pre>
 *
 * @param value the annotation as written; null when absent
 * @param sites the sites it names, in spec order; empty when invalid
 * @param problem why the value is refused; null when it is valid
 */
public record FencedSites(String value, List<String> sites, String problem) {
  public static final String ANNOTATION = Annotations.FENCED_SITES;
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  public FencedSites {
    sites = List.copyOf(sites);
  }

  public boolean valid() {
    return problem == null;
  }

  /** Reads the annotation ({@code null}: absent, nothing fenced) against the spec's sites. */
  public static FencedSites read(String value, GroupConfig config) {
    if (value == null || value.strip().isEmpty()) {
      return new FencedSites(value, List.of(), null);
    }
    List<String> declared = config.sites().stream().map(SiteSpec::name).toList();
    Set<String> named = new LinkedHashSet<>();
    for (String part : value.split(",", -1)) {
      String site = part.strip();
      String why = null;
      if (site.isEmpty()) {
        why = "it has an empty entry";
      } else if (!NAME.matcher(site).matches()) {
        why = "'" + site + "' is not a site name";
      } else if (!declared.contains(site)) {
        why = "'" + site + "' is not a site of the group (its sites are " + declared + ")";
      } else if (!named.add(site)) {
        why = "it names '" + site + "' twice";
      }
      if (why != null) {
        return new FencedSites(value, List.of(), "the " + ANNOTATION + " annotation is '" + value + "': " + why
            + "; expected a comma-separated list of the group's sites (empty to fence none); nothing was changed, the "
            + "fenced sites stay as they were");
      }
    }
    return new FencedSites(value, declared.stream().filter(named::contains).toList(), null);
  }

  /** What one evaluation does about the annotation (the table of the class comment). */
  public sealed interface Outcome permits Rejected, Unchanged, Apply {}

  /** Row 1: the value is refused; the accepted sites stay. */
  public record Rejected(String why) implements Outcome {}

  /** Row 2. */
  public record Unchanged() implements Outcome {}

  /**
   * Rows 3 and 4: {@code next} becomes {@code status.fencedSites}.
   *
   * @param unfenceActive the active site leaves the set: it is made writable again before the status says so
   * @param held the removals a paused group keeps for later (empty when none)
   */
  public record Apply(List<String> next, List<String> fenced, List<String> unfenced, boolean unfenceActive,
      List<String> held) implements Outcome {
    public Apply {
      next = List.copyOf(next);
      fenced = List.copyOf(fenced);
      unfenced = List.copyOf(unfenced);
      held = List.copyOf(held);
    }
  }

  /**
   * @param accepted {@code status.fencedSites}: what the group acts on now (null: none)
   * @param activeSite {@code status.activeSite}; null before adoption
   * @param paused whether the group is paused ({@link PauseAnnotation})
   */
  public Outcome judge(List<String> accepted, String activeSite, boolean paused) {
    List<String> before = accepted == null ? List.of() : accepted;
    if (!valid()) {
      return new Rejected(problem);
    }
    if (Set.copyOf(before).equals(Set.copyOf(sites))) {
      return new Unchanged();
    }
    List<String> added = sites.stream().filter(s -> !before.contains(s)).toList();
    List<String> removed = before.stream().filter(s -> !sites.contains(s)).toList();
    if (paused && !removed.isEmpty()) {
      if (added.isEmpty()) {
        return new Unchanged();
      }
      List<String> next = new ArrayList<>(before);
      next.addAll(added);
      return new Apply(next, added, List.of(), false, removed);
    }
    return new Apply(sites, added, removed, activeSite != null && removed.contains(activeSite), List.of());
  }

  /** The message of the Fenced condition and of the SiteFenced Event. */
  public static String fencedMessage(List<String> fenced, String activeSite) {
    String which = (fenced.size() == 1 ? "site " : "sites ") + String.join(", ", fenced);
    String message = which + (fenced.size() == 1 ? " is" : " are") + " fenced (" + ANNOTATION + "): held read-only by "
        + "the watcher and the sidecars, out of the replicas Service, never a failover candidate";
    if (activeSite != null && fenced.contains(activeSite)) {
      message += "; the active site " + activeSite + " is fenced: the group's writes are stopped until it is unfenced";
    }
    return message;
  }

  /** Whether {@code site} is in {@code fenced} (null: none). */
  public static boolean contains(List<String> fenced, String site) {
    return fenced != null && site != null && fenced.contains(site);
  }
}
