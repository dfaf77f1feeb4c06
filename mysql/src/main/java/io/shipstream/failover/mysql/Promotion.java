package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a replica the primary: replication ended and forgotten, read-only cleared and read back.
 * Two forms: {@link #inOneExchange} for a server its caller proved caught up with its fenced direct
 * source, {@link #stepByStep} when the relay log may hold unapplied transactions (drained first,
 * {@link RelayLogDrain}) or semi-sync settings come before the first write. {@link #run} picks.
 */
public final class Promotion {
  private static final Logger LOG = LoggerFactory.getLogger(Promotion.class);

  private final MysqlSession session;
  private final Clock clock;
  private final Consumer<Object> beat;

  /** {@code beat}: told what is applied so far while a relay drain waits, as an activity heartbeats. */
  public Promotion(MysqlSession session, Clock clock, Consumer<Object> beat) {
    this.session = session;
    this.clock = clock;
    this.beat = beat;
  }

  /**
   * What a promotion left: the executed set once writable, what was applied from the relay log
   * before replication ended, and when the server became writable (the middle of that exchange).
   */
  public record Promoted(String gtidExecuted, String relayAppliedUpTo, Instant writableAt) {}

  /**
   * In one exchange when {@code caughtUpFromFencedSource} and there are no semi-sync settings, and
   * that was not refused; otherwise step by step.
   *
   * @throws StillReadOnlyException when the server reads back read-only after it was cleared
   */
  public Promoted run(Instant relayDrainDeadline, SemiSyncSettings semiSync, boolean caughtUpFromFencedSource)
      throws MysqlException {
    if (caughtUpFromFencedSource && semiSync == null) {
      Optional<Promoted> promoted = inOneExchange();
      if (promoted.isPresent()) {
        return promoted.get();
      }
    }
    return stepByStep(relayDrainDeadline, semiSync);
  }

  /**
   * The promotion of a server the caller proved caught up with its fenced direct source, as one
   * exchange: the replica's status and positions (read first, as the step-by-step promotion does,
   * but only checked afterwards), replication stopped and forgotten, read-only cleared and read
   * back, and the positions. A retry after the promotion already happened sends the same: neither
   * flavor refuses STOP/RESET on a server that is no replica (MySQL 9.7 warns 3084, MariaDB 10.11
   * warns 1255). Empty when the server refused a statement anyway (the statements after it are not
   * run): the step-by-step promotion then does what is left, or reports the refusal as it always did.
   */
  public Optional<Promoted> inOneExchange() throws MysqlException {
    SqlDialect dialect = session.dialect();
    List<List<Map<String, String>>> results;
    try {
      // Four results: the statements that change something return none.
      results = session.queryAll(dialect.replicaStatusQuery() + "; " + dialect.positionsQuery() + "; "
          + dialect.stopAndForgetSourceStatements() + "; " + dialect.clearReadOnlyStatement() + "; "
          + dialect.writableQuery() + "; " + dialect.positionsQuery());
    } catch (MysqlException e) {
      if (e.connectionProblem()) {
        throw e;
      }
      LOG.info("promoting {} in one exchange was refused ({}): promoting it step by step", session.address(),
          e.describe());
      return Optional.empty();
    }
    Instant writableAt = session.lastExchangeMiddle(clock);
    Optional<ReplicaStatus> replica = dialect.replicaStatus(results.get(0));
    SqlDialect.Positions before = dialect.positions(results.get(1).get(0));
    if (replica.isPresent()) {
      warnIfRelayWasNotApplied(replica.get(), before.applied());
    }
    if (!dialect.writable(results.get(2).get(0))) {
      throw new StillReadOnlyException(session.address());
    }
    Promoted result = new Promoted(dialect.positions(results.get(3).get(0)).executed(), before.executed(), writableAt);
    LOG.info("promoted {} in one exchange: writable at gtid {}", session.address(), result.gtidExecuted());
    return Optional.of(result);
  }

  /**
   * After a promotion in one exchange: what the server had received but not applied when
   * replication was stopped was discarded with the relay log. The caller proved there was none (the
   * lag gate against the fenced direct source), so this happens only when someone re-pointed the
   * server at another source during the failover; it is reported, not undone.
   */
  private void warnIfRelayWasNotApplied(ReplicaStatus replica, GtidSet applied) {
    String receivedText = replica.receivedGtidSet();
    GtidSet received;
    try {
      received = GtidSet.parse(receivedText);
    } catch (IllegalArgumentException e) {
      LOG.error("promoted {} in one exchange, but its received set '{}' could not be read: transactions in its relay"
          + " log may have been discarded unapplied", session.address(), receivedText);
      return;
    }
    if (!GtidWait.contains(applied, received)) {
      String lacking;
      try {
        lacking = received.subtract(applied).toString();
      } catch (RuntimeException e) {
        lacking = "those of " + received + " beyond " + applied;
      }
      LOG.error("promoted {} in one exchange, but it had received transactions it had not applied: {} (from {}:{})"
          + " were discarded with its relay log. The caller had found it caught up with its fenced direct source,"
          + " which only a re-pointing during the failover undoes; compare these with its new writes",
          session.address(), lacking, replica.sourceHost(), replica.sourcePort());
    }
  }

  /**
   * The promotion when the relay log may hold unapplied transactions, or with semi-sync settings:
   * the replica's state is read first and the relay drained when needed, then replication ended.
   */
  public Promoted stepByStep(Instant relayDrainDeadline, SemiSyncSettings semiSync) throws MysqlException {
    SqlDialect dialect = session.dialect();
    // First exchange: the replica's status and what is applied. After the lag gate the relay log
    // is applied already (the fenced source sends nothing more), and nothing needs draining.
    List<List<Map<String, String>>> read = session.queryAll(dialect.replicaStatusQuery() + "; "
        + dialect.positionsQuery());
    Optional<ReplicaStatus> replica = dialect.replicaStatus(read.get(0));
    SqlDialect.Positions positions = dialect.positions(read.get(1).get(0));
    String relayAppliedUpTo = positions.executed();
    StringBuilder promotion = new StringBuilder();
    if (replica.isPresent()) {
      if (!GtidWait.contains(positions.applied(), GtidSet.parse(replica.get().receivedGtidSet()))) {
        relayAppliedUpTo = new RelayLogDrain(session, clock, beat).drain(replica.get(), relayDrainDeadline);
      }
      promotion.append(dialect.stopAndForgetSourceStatements()).append("; ");
    }
    // Not a replica: promoted already (a retry), or a server that never replicated.
    if (semiSync != null) {
      // Before the first write: the new primary's first commits already wait for an acknowledgement.
      if (!promotion.isEmpty()) {
        session.queryAll(promotion.toString());
        promotion.setLength(0);
      }
      SemiSync.Outcome outcome = SemiSync.apply(session, semiSync);
      if (outcome.changed()) {
        LOG.info("semi-sync on {} before it takes writes: {}", session.address(), outcome.changes());
      }
    }
    // Last exchange: replication ended, the read-only flag cleared, and read back.
    promotion.append(dialect.clearReadOnlyStatement()).append("; ").append(dialect.writableQuery()).append("; ")
        .append(dialect.positionsQuery());
    List<List<Map<String, String>>> promoted = session.queryAll(promotion.toString());
    Instant writableAt = session.lastExchangeMiddle(clock);
    if (!dialect.writable(promoted.get(0).get(0))) {
      throw new StillReadOnlyException(session.address());
    }
    Promoted result = new Promoted(dialect.positions(promoted.get(1).get(0)).executed(), relayAppliedUpTo, writableAt);
    LOG.info("promoted {}: writable at gtid {}", session.address(), result.gtidExecuted());
    return result;
  }
}
