package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The catalogue holds every key the parsers read, each once, and the keys are the ones users have
 * set since 0.1.0: a key is part of the product's interface, and renaming one would silently drop
 * every request written with the old one.
 */
class AnnotationsTest {
  @Test
  void theKeysAreThoseOfTheRelease() {
    assertThat(List.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, DryRunAnnotation.ANNOTATION,
        PauseAnnotation.ANNOTATION, FencedSites.ANNOTATION, PromoteAnywayAnnotation.ANNOTATION, Adoption.ANNOTATION,
        GroupDeletion.FINALIZER)).containsExactly("bloodraven.shipstream.io/planned-failover",
            "bloodraven.shipstream.io/dry-run", "bloodraven.shipstream.io/paused",
            "bloodraven.shipstream.io/fenced-sites",
            "bloodraven.shipstream.io/promote-anyway", "bloodraven.shipstream.io/adopt",
            "bloodraven.shipstream.io/finalizer");
  }

  @Test
  void theCatalogueListsEveryKeyTheParsersReadOnce() {
    assertThat(Annotations.ALL).extracting(Annotations.Entry::name).containsExactlyInAnyOrder(
        MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, DryRunAnnotation.ANNOTATION, PauseAnnotation.ANNOTATION,
        FencedSites.ANNOTATION, PromoteAnywayAnnotation.ANNOTATION, Adoption.ANNOTATION, GroupDeletion.FINALIZER);
    assertThat(Annotations.ALL).allSatisfy(e -> assertThat(List.of(e.on(), e.grammar(), e.effect(), e.writers()))
        .as("%s is described", e.name()).allSatisfy(text -> assertThat(text).isNotBlank()));
  }
}
