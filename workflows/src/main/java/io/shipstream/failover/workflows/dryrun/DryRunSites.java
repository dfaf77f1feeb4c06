package io.shipstream.failover.workflows.dryrun;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.DryRunActivities;
import io.shipstream.failover.workflows.activities.DryRunActivities.Reachability;
import io.shipstream.failover.workflows.activities.DryRunActivities.ServerReading;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A dry run's reads of the group's servers and hook, every site at once. The inspection is the
 * planned runbook's own ({@link MysqlActivities#inspect}); the readings are the dry run's ({@link
 * DryRunActivities#read}). Workflow code.
 */
record DryRunSites(GroupRef group, MysqlActivities mysql, DryRunActivities reads) {

  /** Every site as Validating inspects it; a failed inspection is an unreachable state, as there. */
  Map<String, ServerState> inspectAll(GroupConfig config) {
    return FailoverRun.inspectAll(mysql, group, config, config.sites());
  }

  /** Every site as the watcher polls it, with the dry run's own measurements. */
  Map<String, ServerReading> readAll(GroupConfig config) {
    Map<String, Promise<ServerReading>> pending = new LinkedHashMap<>();
    for (SiteSpec site : config.sites()) {
      pending.put(site.name(), Async.function(reads::read, MysqlTarget.of(group, config, site)));
    }
    Map<String, ServerReading> readings = new LinkedHashMap<>();
    pending.forEach((name, promise) -> {
      try {
        readings.put(name, promise.get());
      } catch (ActivityFailure e) {
        readings.put(name, ServerReading.unreachable(name, Failures.rootMessage(e)));
      }
    });
    return readings;
  }

  Reachability reach(String url, Duration timeout) {
    try {
      return reads.reach(url, timeout.toMillis());
    } catch (ActivityFailure e) {
      return new Reachability(false, null, Failures.rootMessage(e));
    }
  }

  static String transport(ServerReading r) {
    return r.transport() == null ? "unknown" : r.transport();
  }

  static String millis(Long micros) {
    return micros == null ? "?" : String.format("%.2f", micros / 1000.0);
  }
}
