package io.shipstream.failover.model.gtid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Every transaction any of several servers was seen to hold, as one GTID set. Server positions
 * are merged as the servers print them: a MySQL set keeps every interval of every source, a
 * MariaDB position keeps the highest seqno each server id reached in each domain. Null and blank
 * texts add nothing.
 */
public final class GtidUnion {
  private GtidUnion() {}

  /**
   * @throws IllegalArgumentException when a text is not a GTID set, or MySQL and MariaDB sets are mixed
   */
  public static GtidSet of(Collection<String> sets) {
    List<String> parts = new ArrayList<>();
    for (String set : sets) {
      if (set != null && !set.isBlank()) {
        // Each one alone first, so a bad text is named in the error rather than the joined one.
        String canonical = GtidSet.parse(set).toString();
        if (!canonical.isEmpty()) {
          parts.add(canonical);
        }
      }
    }
    return GtidSet.parse(String.join(",", parts));
  }

  public static GtidSet of(String... sets) {
    return of(Arrays.asList(sets));
  }
}
