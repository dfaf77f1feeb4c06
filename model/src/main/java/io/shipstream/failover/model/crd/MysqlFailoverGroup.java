package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
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
import io.shipstream.failover.model.Annotations;
import java.util.List;

/**
 * One MySQL (or MariaDB) primary and its replicas spread over sites. The spec says where the
 * servers are and how cautious a failover must be; the status says which site is active and
 * what the current or last failover did.
 *
 * <p>Read tolerantly: a field this version does not know (a CRD upgraded ahead of the watcher, an
 * object created with {@code --validate=false}) is ignored at every level, here and in every
 * spec and status type. A value that cannot be read at all is not a reason to stop reading the
 * other groups: the watcher's cache hands such an object out with {@link #unreadable()} naming
 * what could not be read, and the part that could not be read left empty.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
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
@AdditionalPrinterColumn(name = "ReadySites", jsonPath = ".status.readySites", type = Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
public class MysqlFailoverGroup extends CustomResource<MysqlFailoverGroupSpec, MysqlFailoverGroupStatus>
    implements Namespaced {
  public static final String GROUP = "shipstream.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** The Ready condition's status, the column {@code kubectl get} shows and {@code kubectl wait} waits on. */
  public static final String READY_STATUS_PATH = ".status.conditions[?(@.type==\"Ready\")].status";

  /** The annotation an operator sets to request a planned failover. */
  public static final String PLANNED_FAILOVER_ANNOTATION = Annotations.PLANNED_FAILOVER;

  /** What could not be read of this object (field path and why); empty for an object read whole. */
  @JsonIgnore
  private List<String> unreadable = List.of();

  /** Whether {@code status} could not be read: it is then null here, although the object has one. */
  @JsonIgnore
  private boolean statusUnreadable;

  /** What could not be read of this object, for the InvalidSpec condition and Event; empty when read whole. */
  @JsonIgnore
  public List<String> unreadable() {
    return unreadable;
  }

  /** Whether the object has a status this version could not read (then {@link #getStatus()} is null). */
  @JsonIgnore
  public boolean statusUnreadable() {
    return statusUnreadable;
  }

  /**
   * Marks an object of which some parts could not be read (they are left null); {@code status}
   * says whether the status was one of them. Only readers that keep going past such objects call it.
   */
  @JsonIgnore
  public MysqlFailoverGroup markUnreadable(List<String> problems, boolean status) {
    this.unreadable = List.copyOf(problems);
    this.statusUnreadable = status;
    return this;
  }

  /** The value of the annotation {@code key}; null when the resource does not carry it. */
  public String annotation(String key) {
    java.util.Map<String, String> annotations = getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
