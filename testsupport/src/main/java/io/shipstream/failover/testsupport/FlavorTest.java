package io.shipstream.failover.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A test body run once per {@link Flavor}, given as its parameter; the flavor is in each run's
 * display name in capitals ({@code MYSQL}, {@code MARIADB}), and so in the build's reports,
 * which name tests by display name. The body calls {@link Flavor#assumeAvailable} before anything
 * else, so a flavor that cannot run here is skipped with its reason.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@EnumSource(Flavor.class)
public @interface FlavorTest {}
