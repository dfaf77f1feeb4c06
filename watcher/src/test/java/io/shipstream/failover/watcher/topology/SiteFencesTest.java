package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.FencedSites;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the watcher does with the fenced-sites annotation: records what it accepts, one Event per
 * site, a refused value once with nothing changed, and the active site made writable before it
 * leaves the list.
 */
class SiteFencesTest {
  private static final GroupConfig CONFIG = Fixtures.config("0s", List.of());

  private final Recording effects = new Recording();
  private final SiteFences fences = new SiteFences(effects);
  /** What the monitor keeps about the group while its polls run: the fences' slice of it. */
  private final SiteFences.Memory memory = new SiteFences.Memory();

  /** The fake, with what a fence keeper does besides. */
  static final class Recording extends Fixtures.RecordingEffects {
    final List<List<String>> recorded = new ArrayList<>();
    final List<String> unfenced = new ArrayList<>();
    boolean unfenceFails;

    @Override
    public synchronized void recordFencedSites(GroupRef group, List<String> sites) {
      recorded.add(sites);
    }

    @Override
    public synchronized void unfence(GroupRef group, String site) throws Exception {
      if (unfenceFails) {
        throw new java.sql.SQLException("Connection refused");
      }
      unfenced.add(site);
    }
  }

  private static MysqlFailoverGroup group(String annotation) {
    MysqlFailoverGroup g = new MysqlFailoverGroup();
    g.getMetadata().setName(ORDERS.name());
    g.getMetadata().setNamespace(ORDERS.namespace());
    HashMap<String, String> annotations = new HashMap<>();
    if (annotation != null) {
      annotations.put(FencedSites.ANNOTATION, annotation);
    }
    g.getMetadata().setAnnotations(annotations);
    return g;
  }

  private static MysqlFailoverGroupStatus status(List<String> fenced) {
    return MysqlFailoverGroupStatus.empty().withActiveSite("iad").withFencedSites(fenced);
  }

  private SiteFences.Accepted keep(String annotation, List<String> statusSays, boolean paused) {
    return fences.keep(memory, ORDERS, CONFIG, group(annotation), status(statusSays), paused, Fixtures.NOW);
  }

  @Test
  void aFenceIsRecordedOnceWithOneEventEvenBeforeTheStatusShowsIt() {
    SiteFences.Accepted first = keep("dr", null, false);
    SiteFences.Accepted again = keep("dr", null, false);

    assertThat(first.sites()).containsExactly("dr");
    assertThat(again.sites()).as("the status the informer holds may lag").containsExactly("dr");
    assertThat(effects.recorded).containsExactly(List.of("dr"));
    assertThat(effects.events()).singleElement().asString().startsWith("Normal SiteFenced: site dr is fenced (")
        .contains("out of the replicas Service");
    assertThat(effects.unfenced).isEmpty();
  }

  @Test
  void anUnknownSiteIsRefusedOnceAndTheFencedSitesStayAsTheyWere() {
    SiteFences.Accepted refused = keep("dr,ord", List.of("dr"), false);
    keep("dr,ord", List.of("dr"), false);

    assertThat(refused.sites()).containsExactly("dr");
    assertThat(refused.problem()).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("FenceRejected"));
    assertThat(effects.recorded).as("nothing changed").isEmpty();
    assertThat(effects.events()).singleElement().asString()
        .startsWith("Warning FenceRejected: the " + FencedSites.ANNOTATION + " annotation is 'dr,ord'")
        .contains("'ord' is not a site of the group");
  }

  @Test
  void unfencingTheActiveSiteMakesItWritableBeforeTheStatusDropsIt() {
    effects.unfenceFails = true;
    SiteFences.Accepted failed = keep(null, List.of("iad"), false);

    assertThat(failed.sites()).as("still fenced: tried again next time").containsExactly("iad");
    assertThat(effects.recorded).isEmpty();
    assertThat(failed.activeUnfencedAt()).as("not made writable").isNull();

    effects.unfenceFails = false;
    SiteFences.Accepted done = keep(null, List.of("iad"), false);

    assertThat(done.sites()).isEmpty();
    assertThat(done.activeUnfencedAt()).as("the matrix's row 12a is told when").isEqualTo(Fixtures.NOW);
    assertThat(keep(null, List.of(), false).activeUnfencedAt()).as("and later evaluations too")
        .isEqualTo(Fixtures.NOW);
    assertThat(effects.unfenced).containsExactly("iad");
    assertThat(effects.recorded).containsExactly(List.of());
    assertThat(effects.events()).singleElement().asString()
        .isEqualTo(
            "Normal SiteUnfenced: site iad is unfenced: the active site was made writable again and takes writes");
  }

  @Test
  void unfencingAReplicaOnlyMakesItACandidateAgain() {
    assertThat(keep("", List.of("dr"), false).activeUnfencedAt()).isNull();

    assertThat(effects.unfenced).isEmpty();
    assertThat(effects.recorded).containsExactly(List.of());
    assertThat(effects.events()).singleElement().asString()
        .startsWith("Normal SiteUnfenced: site dr is unfenced: it is a "
            + "failover candidate again");
  }

  @Test
  void aPausedGroupTakesAFenceAndHoldsAnUnfenceUntilItResumes() {
    SiteFences.Accepted held = keep(null, List.of("iad"), true);
    keep(null, List.of("iad"), true);

    assertThat(held.sites()).containsExactly("iad");
    assertThat(effects.unfenced).isEmpty();
    assertThat(effects.events()).singleElement().asString()
        .startsWith("Warning ActionHeld: paused: would unfence [iad]");

    SiteFences.Accepted resumed = keep(null, List.of("iad"), false);
    assertThat(resumed.sites()).isEmpty();
    assertThat(effects.unfenced).containsExactly("iad");
  }

  @Test
  void aPausedGroupTakesAFence() {
    SiteFences.Accepted fenced = keep("iad,pdx", List.of(), true);

    assertThat(fenced.sites()).containsExactly("iad", "pdx");
    assertThat(effects.recorded).containsExactly(List.of("iad", "pdx"));
  }
}
