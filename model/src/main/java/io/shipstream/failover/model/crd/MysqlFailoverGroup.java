package io.shipstream.failover.model.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One MySQL (or MariaDB) primary and its replicas spread over sites. The spec says where the
 * servers are and how cautious a failover must be; the status says which site is active and
 * what the current or last failover did.
 */
@Group(MysqlFailoverGroup.GROUP)
@Version(MysqlFailoverGroup.VERSION)
@Kind("MysqlFailoverGroup")
@Singular("mysqlfailovergroup")
@Plural("mysqlfailovergroups")
@ShortNames("mfg")
@AdditionalPrinterColumn(name = "Active", jsonPath = ".status.activeSite", type = Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = MysqlFailoverGroup.READY_STATUS_PATH, type = Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.plannedFailover.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Emergency", jsonPath = ".status.emergencyFailover.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class MysqlFailoverGroup extends CustomResource<MysqlFailoverGroupSpec, MysqlFailoverGroupStatus>
    implements Namespaced {
  public static final String GROUP = "shipstream.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** The Ready condition's status, the column {@code kubectl get} shows and {@code kubectl wait} waits on. */
  public static final String READY_STATUS_PATH = ".status.conditions[?(@.type==\"Ready\")].status";

  /** The annotation an operator sets to request a planned failover. */
  public static final String PLANNED_FAILOVER_ANNOTATION = "bloodraven.shipstream.io/planned-failover";

  /** The value of the annotation {@code key}; null when the resource does not carry it. */
  public String annotation(String key) {
    java.util.Map<String, String> annotations = getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
