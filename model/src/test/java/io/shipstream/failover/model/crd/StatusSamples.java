package io.shipstream.failover.model.crd;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import java.util.List;

/** Statuses for schema tests. */
final class StatusSamples {
  private StatusSamples() {}

  /**
   * A status with a value in every field of every nested record, every condition field included.
   * No real failover writes all of these at once (a group has a planned or an emergency record
   * the user looks at, not both from one run), but the schema must hold each of them.
   */
  static MysqlFailoverGroupStatus everyField() {
    String gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9182731";
    SiteStatus iad = new SiteStatus("iad", "Healthy", "2026-04-20T14:33:01Z", true, gtid, 0L,
        "3e11fa47-71ca-11e1-9e33-c80aa9429562:9182732", new MysqlFailoverGroupStatus.Readiness(false,
            "ReplicationStopped", true, "Lagging", 2, "planned target: not ready, target iad is not replicating"));
    SiteStatus pdx = new SiteStatus("pdx", "Unreachable", "2026-04-20T14:32:00Z", false, gtid, null, null);
    PlannedFailoverStatus planned = new PlannedFailoverStatus("Succeeded", "pdx", "iad", gtid, gtid,
        "2026-04-20T14:32:00Z", "2026-04-20T14:32:47Z", 47.125, 0L, "CooldownActive", "2026-04-20T14:37:00Z",
        "promoted pdx, 0 transactions lost",
        new PlannedFailoverStatus.DragonflyStatus(true, true, "REPLTAKEOVER", 3.5), "2026-04-20T14:32:00Z",
        new WriteWindow(0.137, "2026-04-20T14:32:46.500Z", "2026-04-20T14:32:46.637Z", 0.01, 2.5),
        List.of(new ChannelCheck("iad", "pdx", "verify-identity", true, "/etc/mysql/ca.pem", "/etc/mysql/client.pem",
            true, true, true, null),
            new ChannelCheck("dr", "pdx", "verify-identity", true, "/etc/mysql/ca.pem", null,
                false, true, false,
                "weaker than the group's replication TLS verify-identity: TLS (CA /etc/mysql/ca.pem), "
                    + "IO connected")));
    EmergencyFailoverStatus emergency = new EmergencyFailoverStatus("Succeeded", "iad", "pdx", "PrimaryUnreachable",
        "ExecuteFailed", "2026-04-20T15:00:00Z", "2026-04-20T15:00:04Z", 4.2, true, gtid, gtid, 1L,
        "3e11fa47-71ca-11e1-9e33-c80aa9429562:9182732", "promoted pdx, 1 transaction lost",
        new EmergencyFailoverStatus.ForcedPromotion("bloodraven.shipstream.io/promote-anyway=pdx", 0L, 1L,
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:9182732"),
        "iad's GTID set read at its fence, with 2 set(s) of the other servers as last seen, against pdx's set read "
            + "right after its promotion",
        new EmergencyFailoverStatus.OldPrimaryWait(36.5, "2026-04-20T15:00:40Z", "PROBED",
            "the longer of the lease (20 s + 5 s interval + 1 s = 26 s) and a hung sidecar's restart (...)"),
        new WriteWindow(3.1, "2026-04-20T15:00:00Z", "2026-04-20T15:00:03.100Z", 0.5, 6.5),
        List.of(new ChannelCheck("dr", "pdx", "required", true, "/etc/mysql/ca.pem", "/etc/mysql/client.pem", false,
            false, false, "IO thread not connected: TLS (CA /etc/mysql/ca.pem), IO Connecting"),
            ChannelCheck.unreadable("iad", "pdx", "required", "Communications link failure")));
    Condition ready = new ConditionBuilder().withType("Ready").withStatus("True").withReason("PrimaryWritable")
        .withMessage("pdx is the active site and accepts writes").withLastTransitionTime("2026-04-20T14:32:47Z")
        .withObservedGeneration(3L).build();
    return new MysqlFailoverGroupStatus("pdx", "2026-04-20T14:32:47Z", "pdx", gtid, List.of(iad, pdx), planned,
        new WorkflowRef("PlannedFailoverWorkflow", "mysqlfailovergroup/shop/orders", "6f1c2d3e-4b5a"),
        List.of(ready), 3L, emergency, new MysqlFailoverGroupStatus.SemiSyncStatus("pdx", "preferred", true, 1, 1,
            false, "every commit waits for 1 replica acknowledgement(s) (1 connected)"),
        List.of("dr"),
        List.of(new MysqlFailoverGroupStatus.LostTransactions("iad", "2026-04-20T15:00:00Z", "pdx",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:9182733-9182740", 8L, "2026-04-20T15:02:10Z")),
        "2026-04-20T14:32:47Z",
        List.of(new MysqlFailoverGroupStatus.FailoverHistoryEntry("mysqlfailovergroup/shop/orders", "7a2d3e4f-5b6c",
            "emergency", "pdx", "Failed", "ExecuteFailed", "2026-04-20T15:00:00Z", 4.2, 3.1)),
        "pdx",
        new DryRunStatus("iad", DryRunStatus.SWITCHOVER, "WouldWait", "CooldownActive",
            "failover cooldown active: deferred until 2026-04-20T16:05:00Z",
            "iad", "pdx", "2026-04-20T16:00:00Z", "2026-04-20T16:00:01Z", 2L, 1L, 1.004, 0L,
            List.of("lag: iad is 2 transaction(s) and 1 s behind pdx (maxLagWait 300 s)"),
            List.of("the lag gate would hold writes for about 1 s"), "mysqlfailovergroup/shop/orders-dry-run-1"));
  }
}
