package io.shipstream.failover.dev;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.PlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SidecarSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;

/**
 * A group's spec, or one of its sites, with one part changed and the rest as it was: what the
 * stack, the scenarios and the tests write back as {@code kubectl edit} would.
 */
public final class GroupSpecs {
  private static final ObjectMapper JSON = new ObjectMapper();

  private GroupSpecs() {}

  public static MysqlFailoverGroupSpec withSites(MysqlFailoverGroupSpec s, List<SiteSpec> sites) {
    return with(s, "sites", sites);
  }

  public static MysqlFailoverGroupSpec withPlannedFailover(MysqlFailoverGroupSpec s, PlannedFailoverSpec planned) {
    return with(s, "plannedFailover", planned);
  }

  public static MysqlFailoverGroupSpec withSidecar(MysqlFailoverGroupSpec s, SidecarSpec sidecar) {
    return with(s, "sidecar", sidecar);
  }

  public static MysqlFailoverGroupSpec withDragonfly(MysqlFailoverGroupSpec s, DragonflySpec dragonfly) {
    return with(s, "dragonfly", dragonfly);
  }

  public static MysqlFailoverGroupSpec withSemiSync(MysqlFailoverGroupSpec s,
      MysqlFailoverGroupSpec.SemiSyncSpec semi) {
    return with(s, "semiSync", semi);
  }

  public static MysqlFailoverGroupSpec withEmergencyFailover(MysqlFailoverGroupSpec s,
      MysqlFailoverGroupSpec.EmergencyFailoverSpec emergency) {
    return with(s, "emergencyFailover", emergency);
  }

  /** The spec with {@code spec.hooks} replaced (removed for null). */
  public static MysqlFailoverGroupSpec withHooks(MysqlFailoverGroupSpec s, MysqlFailoverGroupSpec.HooksSpec hooks) {
    return with(s, "hooks", hooks);
  }

  /**
   * The spec with one top-level field replaced (removed for null) and every other field as it was,
   * through its JSON form as the API server holds it, so that a field added to the spec is never
   * dropped by an edit that does not know it.
   */
  static MysqlFailoverGroupSpec with(MysqlFailoverGroupSpec s, String field, Object value) {
    ObjectNode node = JSON.valueToTree(s);
    if (value == null) {
      node.remove(field);
    } else {
      node.set(field, JSON.valueToTree(value));
    }
    try {
      return JSON.treeToValue(node, MysqlFailoverGroupSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the spec with a new " + field + " does not read back: " + e.getMessage(), e);
    }
  }

  /** The site with its MySQL endpoint, sidecar and store endpoint replaced. */
  public static SiteSpec withEndpoints(SiteSpec s, SiteSpec.Endpoint mysql, SiteSpec.Sidecar sidecar,
      SiteSpec.Endpoint dragonfly) {
    return new SiteSpec(s.name(), s.role(), s.zone(), mysql, s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        sidecar, dragonfly);
  }
}
