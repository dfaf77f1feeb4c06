package io.shipstream.failover.workflows.dragonfly;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.dragonfly.FreshestStore.Choice;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreshestStoreTest {
  static StoreState replica(String site, long offset) {
    return new StoreState(site, true, null, "redis", StoreState.REPLICA, "iad.store", 6379, false, offset);
  }

  static StoreState master(String site) {
    return new StoreState(site, true, null, "redis", StoreState.MASTER, null, null, false, 900);
  }

  @Test
  void theReplicaWithTheHighestOffsetWinsEvenAgainstThePreferredSite() {
    assertThat(FreshestStore.choose(List.of(StoreState.unreachable("iad", "refused"), replica("pdx", 100),
        replica("dr", 120)), "pdx")).contains(new Choice("dr", false));
  }

  @Test
  void onATieThePreferredSiteWinsWhateverTheOrder() {
    assertThat(FreshestStore.choose(List.of(replica("dr", 100), replica("pdx", 100)), "pdx"))
        .contains(new Choice("pdx", false));
    assertThat(FreshestStore.choose(List.of(replica("pdx", 100), replica("dr", 100)), "pdx"))
        .contains(new Choice("pdx", false));
  }

  @Test
  void unknownOffsetsRankBelowKnownOnes() {
    assertThat(FreshestStore.choose(List.of(replica("pdx", -1), replica("dr", 5)), "pdx"))
        .contains(new Choice("dr", false));
  }

  @Test
  void withoutAReachableReplicaAReachableMasterIsKept() {
    assertThat(FreshestStore.choose(List.of(master("iad"), StoreState.unreachable("pdx", "refused")), "pdx"))
        .contains(new Choice("iad", true));
  }

  @Test
  void nothingReachableIsNoChoice() {
    assertThat(FreshestStore.choose(List.of(StoreState.unreachable("iad", "x"), StoreState.unreachable("pdx", "y")),
        "pdx")).isEmpty();
  }
}
