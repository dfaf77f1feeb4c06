package io.shipstream.failover.dev;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules of the design, checked on the compiled classes: a pure model, workflows that
 * touch the world only through Temporal, and nothing that depends on the three processes.
 */
class ArchitectureTest {
  static final String BASE = "io.shipstream.failover";
  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    // The model's test jar (CrdSchema for the IT hook) is on this classpath too; its classes are tests,
    // though not in a test-classes directory, so they are left out by name.
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages(BASE);
    // A rule over no classes passes; make sure every module was found on the classpath.
    for (String module : new String[] {"model", "workflows", "kube", "activities", "watcher", "worker", "sidecar",
        "runtime", "temporal", "mysql", "wire"}) {
      if (!classes.containPackage(BASE + "." + module)) {
        throw new AssertionError("no classes of " + module + " on the test classpath");
      }
    }
  }

  /**
   * javax.net.ssl is allowed for its exception types only: {@code TlsProblem} names why a handshake
   * failed from them, for the MySQL sessions and the control plane alike (no I/O: see below).
   */
  @Test
  void modelIsPureDomain() {
    classes().that().resideInAPackage(BASE + ".model..")
        .should().onlyDependOnClassesThat().resideInAnyPackage(
            "java..", "javax.net.ssl..", BASE + ".model..", "com.fasterxml.jackson.annotation..",
            "io.fabric8.kubernetes.api.model..",
            "io.fabric8.kubernetes.client", "io.fabric8.kubernetes.model.annotation..",
            "io.fabric8.generator.annotation..",
            "io.fabric8.crd.generator.annotation..")
        .check(classes);
  }

  @Test
  void modelDoesNoIo() {
    noClasses().that().resideInAPackage(BASE + ".model..")
        .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "java.net..", "java.io..", "java.nio.file..")
        .check(classes);
  }

  @Test
  void workflowsTouchTheWorldOnlyThroughTemporal() {
    noClasses().that().resideInAPackage(BASE + ".workflows..")
        .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "java.net..", "java.io.File..",
            "java.nio.file..", "io.fabric8.kubernetes.client..", "java.util.concurrent..", "java.util.Random",
            BASE + ".activities..", BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..")
        .check(classes);
  }

  @Test
  void workflowCodeReadsNoClockAndNeverSleeps() {
    noClasses().that().resideInAPackage(BASE + ".workflows..")
        .should().callMethod(System.class, "currentTimeMillis")
        .orShould().callMethod(System.class, "nanoTime")
        .orShould().callMethod(java.time.Instant.class, "now")
        .orShould().callMethod(Thread.class, "sleep", long.class)
        .orShould().callMethod(java.util.UUID.class, "randomUUID")
        .orShould().dependOnClassesThat().areAssignableTo(java.time.Clock.class)
        .orShould().dependOnClassesThat().areAssignableTo(org.slf4j.LoggerFactory.class)
        .check(classes);
  }

  @Test
  void nothingDependsOnTheProcesses() {
    for (String process : new String[] {"worker", "watcher", "sidecar"}) {
      noClasses().that().resideOutsideOfPackages(BASE + "." + process + "..", BASE + ".dev..")
          .should().dependOnClassesThat().resideInAPackage(BASE + "." + process + "..")
          .check(classes);
    }
  }

  /**
   * The JSON the processes exchange is plain records on Jackson, so both ends (the sidecar with
   * its small dependency set among them) can use it, and it knows none of the processes.
   */
  @Test
  void wireIsPlainRecords() {
    classes().that().resideInAPackage(BASE + ".wire..")
        .should().onlyDependOnClassesThat().resideInAnyPackage("java..", BASE + ".wire..", "com.fasterxml.jackson..")
        .check(classes);
  }

  /** Process plumbing every process shares, the sidecar included: so no Temporal here either. */
  @Test
  void runtimeIsPlumbingOnly() {
    noClasses().that().resideInAPackage(BASE + ".runtime..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".model..", BASE + ".workflows..",
            BASE + ".activities..", BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..",
            BASE + ".testsupport..", BASE + ".mysql..", BASE + ".temporal..", BASE + ".kube..", "io.fabric8..",
            "io.temporal..")
        .check(classes);
  }

  /** How the worker and the watcher reach Temporal, and nothing of the domain or the processes. */
  @Test
  void temporalConnectionIsPlumbingOnly() {
    noClasses().that().resideInAPackage(BASE + ".temporal..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".model..", BASE + ".workflows..",
            BASE + ".activities..", BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..",
            BASE + ".testsupport..", BASE + ".mysql..", BASE + ".kube..", "io.fabric8..")
        .check(classes);
  }

  /**
   * The sidecar stands on the model, the mysql module and the runtime: the self-fence must work
   * with the controller, Temporal and the API server all gone, so none of them is on its classpath.
   */
  @Test
  void sidecarStandsOnTheModelAlone() {
    noClasses().that().resideInAPackage(BASE + ".sidecar..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".workflows..", BASE + ".activities..",
            BASE + ".testsupport..", BASE + ".temporal..", BASE + ".kube..", "io.temporal..", "io.fabric8..")
        .check(classes);
  }

  /**
   * Everything that speaks to a MySQL or MariaDB server is written once, for the activities, the
   * watcher and the sidecar, so it knows none of them, nor Temporal (the sidecar uses it).
   */
  @Test
  void mysqlModuleKnowsNoProcessNorTemporal() {
    noClasses().that().resideInAPackage(BASE + ".mysql..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".workflows..", BASE + ".activities..",
            BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..", BASE + ".testsupport..", BASE + ".kube..",
            BASE + ".runtime..", BASE + ".temporal..", "io.temporal..", "io.fabric8..")
        .check(classes);
  }

  /** JDBC is spoken in the mysql module only; test code (testsupport, the dev stack) is exempt. */
  @Test
  void onlyTheMysqlModuleSpeaksJdbc() {
    noClasses().that().resideInAnyPackage(BASE + ".model..", BASE + ".workflows..", BASE + ".kube..",
        BASE + ".activities..", BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..", BASE + ".runtime..",
        BASE + ".temporal..")
        .should().dependOnClassesThat().resideInAPackage("java.sql..")
        .check(classes);
  }

  /**
   * The group's routing (and the reading of its Secret) is written once, for the failover
   * activities and the watcher's steady-state reconciliation, and knows nothing of Temporal or of
   * either of them.
   */
  @Test
  void kubeIsTheRoutingAloneWithoutTemporal() {
    noClasses().that().resideInAPackage(BASE + ".kube..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".workflows..", BASE + ".activities..",
            BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..", BASE + ".testsupport..", BASE + ".runtime..",
            BASE + ".temporal..", "io.temporal..", "java.sql..")
        .check(classes);
  }

  @Test
  void watcherUsesWorkflowInterfacesNotActivities() {
    noClasses().that().resideInAPackage(BASE + ".watcher..")
        .should().dependOnClassesThat().resideInAnyPackage(BASE + ".activities..", BASE + ".testsupport..")
        .check(classes);
  }

  /**
   * The watcher's floors, each importing only those below it: the process (WatcherApp, its
   * configuration, leader election, the request handlers and the real effects it wires in), the
   * monitor (the poll scheduler and the per-group pass, {@code GroupPass}), the pass's steps
   * ({@code topology}: reactions, adoption and conditions, semi-sync, recovery, fences, probes)
   * and the plumbing (what the informer hands every part; the runtime's threads).
   */
  @Test
  void watcherLayersImportOnlyDownwards() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Process").definedBy(BASE + ".watcher", BASE + ".watcher.activesite..")
        .layer("Monitor").definedBy(BASE + ".watcher.monitor..")
        .layer("Steps").definedBy(BASE + ".watcher.topology..")
        .layer("Plumbing").definedBy(BASE + ".watcher.groups..", BASE + ".runtime..")
        .whereLayer("Process").mayNotBeAccessedByAnyLayer()
        .whereLayer("Monitor").mayOnlyBeAccessedByLayers("Process")
        .whereLayer("Steps").mayOnlyBeAccessedByLayers("Process", "Monitor")
        .whereLayer("Plumbing").mayOnlyBeAccessedByLayers("Process", "Monitor", "Steps")
        .check(classes);
  }

  @Test
  void productionCodeNeverUsesTestSupport() {
    noClasses().that().resideInAnyPackage(BASE + ".model..", BASE + ".workflows..", BASE + ".kube..",
        BASE + ".activities..", BASE + ".watcher..", BASE + ".worker..", BASE + ".sidecar..", BASE + ".runtime..",
        BASE + ".temporal..", BASE + ".mysql..")
        .should().dependOnClassesThat().resideInAPackage(BASE + ".testsupport..")
        .check(classes);
  }
}
