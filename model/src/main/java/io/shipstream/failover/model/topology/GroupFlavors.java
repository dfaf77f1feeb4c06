package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the servers the watcher polls are of one flavor, and of the flavor their sites declare.
 * {@link GroupConfig#resolve} refuses a spec that declares both flavors; this finds the same when
 * the flavors were read from the servers (or a declaration is wrong), and the watcher reports it
 * the same way, as an invalid spec, and acts on nothing: GTIDs of MariaDB and MySQL cannot be
 * compared, so no failover could tell which server holds which transactions.
 *
 * <pre>
 * | a site's server                                   | problem                                   |
 * |---------------------------------------------------|-------------------------------------------|
 * | is of another flavor than its site declares       | "site X declares flavor: ..., its server" |
 * | is of another flavor than another site's server   | the mixed group (GroupConfig#mixedFlavors)|
 * | has not answered yet: its declared flavor counts  |                                           |
 * </pre>
 */
public final class GroupFlavors {
  private GroupFlavors() {}

  /** Every problem, empty when the group is of one flavor as far as is known. */
  public static List<String> problems(GroupConfig config, Map<String, SiteObservation> observations) {
    List<String> problems = new ArrayList<>();
    Map<String, String> flavorBySite = new LinkedHashMap<>();
    for (SiteSpec site : config.sites()) {
      SiteObservation o = observations.get(site.name());
      String seen = o == null ? null : flavor(o);
      String declared = display(site.flavor());
      if (seen != null && declared != null && !seen.equals(declared)) {
        problems.add("site '" + site.name() + "' declares flavor: " + site.flavor() + " but its server is " + seen
            + "; correct the flavor, or remove it and the server's greeting tells");
      }
      flavorBySite.put(site.name(), seen != null ? seen : declared);
    }
    String mixed = GroupConfig.mixedFlavors(flavorBySite);
    if (mixed != null) {
      problems.add(mixed);
    }
    return problems;
  }

  /** The flavor the latest poll named, or the last one that named any. */
  private static String flavor(SiteObservation o) {
    if (o.latest() != null && o.latest().flavor() != null) {
      return o.latest().flavor();
    }
    return o.lastReachable() == null ? null : o.lastReachable().flavor();
  }

  /** A declared flavor as servers' flavors are named: "MySQL" or "MariaDB". */
  static String display(String declared) {
    if (declared == null) {
      return null;
    }
    return switch (declared.toLowerCase(Locale.ROOT)) {
      case SiteSpec.FLAVOR_MYSQL -> "MySQL";
      case SiteSpec.FLAVOR_MARIADB -> "MariaDB";
      default -> declared;
    };
  }
}
