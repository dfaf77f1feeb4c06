package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Holistic detection: when the watcher's poll of the active primary fails, the replicas are asked
 * how they see it, and their answer decides whether the primary is dead or only the watcher is cut
 * off. Pure: the watcher passes the replicas' views and the time, and {@link #evaluate} applies the
 * outcome to {@link TopologyMatrix}.
 *
 * <p>Each replica's view is first judged on its own (first matching row):
 *
 * <pre>
 * | #  | the replica's view                                                  | judged             |
 * |----|---------------------------------------------------------------------|--------------------|
 * | r1 | it could not be asked (no answer within the poll's timeout)         | NOT_ASKED          |
 * | r2 | no replication channel, or its IO thread is stopped with no error   | NOT_ELIGIBLE       |
 * |    |   (a DBA stopped it, or it was never started)                       |                    |
 * | r3 | its channel names another source than the primary's server id       | NOT_ELIGIBLE       |
 * | r3t| IO thread not running with a TLS error (2026, or a message naming  | UNSURE             |
 * |    |   SSL, TLS or a certificate, as both flavors' "error connecting to  |                    |
 * |    |   master ... SSL connection error" do)                              |                    |
 * | r4 | IO thread not running (Connecting or No) with a connection error    | LOST, but STALE    |
 * |    |   (2002, 2003, 2005, 2006, 2013, or a message about connecting)     |   when the replica |
 * |    |                                                                     |   dates the error  |
 * |    |                                                                     |   before the       |
 * |    |                                                                     |   primary's last   |
 * |    |                                                                     |   answer           |
 * | r5 | IO thread not running otherwise (still connecting, or another error)| UNSURE             |
 * | r6 | silence (server's clock, or two reads with the same progress) is    | LOST               |
 * |    |   at least minSourceSilence                                         |                    |
 * | r7 | it heard the primary after the watcher's failing poll began: the    | RECEIVING          |
 * |    |   last event or heartbeat is younger than that, or its progress     |                    |
 * |    |   moved since a read taken after it                                 |                    |
 * | r8 | otherwise (IO running, heard it before the watcher lost it, and not | UNSURE             |
 * |    |   silent for minSourceSilence yet)                                  |                    |
 * </pre>
 *
 * <p>Then the replicas together (first matching row), only while the primary's latest poll failed:
 *
 * <pre>
 * | #  | the eligible replicas                                   | outcome        | what the watcher does          |
 * |----|---------------------------------------------------------|----------------|--------------------------------|
 * | c1 | the primary's latest poll answered                      | NOT_NEEDED     | the matrix as it is            |
 * | c2 | any is RECEIVING                                        | ALIVE          | no failover, no fence: the     |
 * |    |                                                         |                |   primary counts as writable;  |
 * |    |                                                         |                |   Degraded, reason             |
 * |    |                                                         |                |   PrimaryUnreachableFromWatcher|
 * | c3 | at least one, and every one that answered is LOST; if   | CONFIRMED_DEAD | the primary counts as          |
 * |    |   any is LOST by its connection error (r4), a poll of   |                |   UNREACHABLE now, without     |
 * |    |   the primary begun after they answered failed too      |                |   waiting out failureThreshold,|
 * |    |                                                         |                |   writable or read-only before |
 * | c3a| as c3, and that poll of the primary answered           | NOT_NEEDED     | the matrix as it is, with that |
 * |    |                                                         |                |   answer as the primary's poll |
 * | c3b| as c3, and no such poll was taken yet                   | RECHECK        | polls the primary once more    |
 * |    |                                                         |                |   and decides again            |
 * | c4 | otherwise (none eligible could be asked, or one UNSURE  | UNCONFIRMED    | the matrix as it is: the       |
 * |    |   or STALE)                                             |                |   debounce decides             |
 * </pre>
 *
 * <p>Why a TLS error is no loss (row r3t): the replica reached the primary's server and its TLS
 * handshake failed (an expired or not-yet-valid certificate, a wrong CA, a name that does not
 * match), so the primary is up; both servers word it as an error connecting to the source, which
 * row r4 would take for a death, and a live primary with an expired certificate would be failed
 * over. The certificate is the operator's to fix (the watcher's own session fails the same way and
 * reports it); a dead primary is still confirmed by a replica that lost it otherwise.
 *
 * <p>Why the poll after the replicas (rows c3-c3b): a replica's connection error can be older than
 * the primary's restart. Its IO thread retries every few seconds and keeps the error of its last
 * try until the next one, so a primary killed and restarted at once answers while its replicas
 * still show the error (seen on the playground: answering 0.45 s after a {@code kill -9}, the
 * replicas' error 2003 still shown 0.1 s later, and the primary was failed over). MariaDB records no time for the error, so only a poll begun after
 * the replicas answered can tell a stale error from a death; MySQL dates it (row r4), and an error
 * older than the primary's last answer proves nothing. A silence (row r6) is measured up to the
 * replica's answer and needs no such poll. Before an emergency failover starts, the failed primary
 * is polled once more ({@link #startStands}): a primary that answers then is not dead either.
 *
 * <p>Right before the watcher starts an emergency failover (first matching row):
 *
 * <pre>
 * | #  | a poll of the failed primary taken right before the start      | the start    |
 * |----|-----------------------------------------------------------------|--------------|
 * | s1 | it answered, writable or read-only (a server configured to      | cancelled    |
 * |    |   start read-only comes back so): a primary that answers at all |              |
 * |    |   is not dead                                                   |              |
 * | s2 | it did not answer                                               | goes ahead   |
 * </pre>
 *
 * <p>Why: the watcher's own failed poll cannot tell a dead primary from a cut link. A replica
 * that was receiving from the primary can: its IO thread loses the connection at once when the
 * server process dies (row r4), and hears nothing, not even a heartbeat, when the server is frozen
 * or its network is black-holed (rows r6), where {@code Replica_IO_Running} stays Yes until the
 * network timeout. A replica that still hears the primary proves it alive (row c2), whatever the
 * debounce says: failing over then would make two primaries of which the application still writes
 * to the old. A replica a DBA stopped, or that replicates from elsewhere, knows nothing of the
 * primary and is not counted. One replica that is not sure keeps the old path (row c4), which is
 * never worse than before. {@code minSourceSilence} keeps a brief stall (a slow disk, a GC-like
 * pause) from counting as a death, and must exceed the heartbeat period (1 s, set by every source
 * change) so that an idle primary is not taken for a silent one.
 *
 * <p>In the rows still decided by the matrix, the Promote verdict's reason starts by naming the
 * path that decided: {@code "replicas confirmed: ..."} or {@code "debounce: ..."}.
 *
 * <p>A replica's own poll can see the death first: {@link #pollPrimaryNow} (first matching row)
 * asks for the primary's poll, and with it the confirmation above, at once instead of at its turn:
 *
 * <pre>
 * | #  | the replica's poll, the primary's latest poll                          | poll the primary now |
 * |----|------------------------------------------------------------------------|----------------------|
 * | p1 | the primary was never polled, or its latest poll failed (its polls and  | no                   |
 * |    |   the confirmation already run)                                         |                      |
 * | p2 | the replica did not answer, or it has no replication channel           | no                   |
 * | p3 | its channel does not name the primary's server id (or either is unknown)| no                   |
 * | p4 | IO thread not running with a connection error (as row r4)              | yes                  |
 * | p5 | otherwise                                                              | no                   |
 * </pre>
 *
 * <p>It only moves a poll forward: what the confirmation decides, and when, is unchanged, so a
 * replica cut off from a live primary (row p4 too) costs one early poll that answers.
 */
public final class PrimaryConfirmation {
  private PrimaryConfirmation() {}

  /** How one replica judges the primary (rows r1-r8). */
  public enum Judged {
    NOT_ASKED, NOT_ELIGIBLE, LOST, UNSURE, STALE, RECEIVING
  }

  /** What the replicas together say (rows c1-c4). */
  public enum Outcome {
    NOT_NEEDED, ALIVE, CONFIRMED_DEAD, RECHECK, UNCONFIRMED
  }

  /** MySQL client errors of a connection that could not be made or was lost. */
  static final Set<Integer> CONNECTION_ERRORS = Set.of(2002, 2003, 2005, 2006, 2013);
  /** CR_SSL_CONNECTION_ERROR, both clients: the TLS handshake with a reachable server failed. */
  static final int TLS_ERROR = 2026;

  /**
   * One replica's answer.
   *
   * @param site the replica's site
   * @param answered whether it could be asked; false leaves every other field meaningless
   * @param configured whether it has a replication channel
   * @param ioState "Yes", "No" or "Connecting"
   * @param lastIoErrno the IO thread's last error number, null or 0 when none
   * @param lastIoError the IO thread's last error, null or blank when none
   * @param sourceServerId the source its channel names; null when unknown
   * @param silence the age of the last event or heartbeat by the replica's clock; null when unknown
   * @param progress what it has received so far, compared across reads; null when unknown
   * @param progressCountsHeartbeats whether {@code progress} moves with each heartbeat too
   * @param at when the watcher read it (the watcher's clock)
   * @param lastIoErrorAge how long ago the IO thread's last error happened, by the replica's own
   *     clock (MySQL's {@code LAST_ERROR_TIMESTAMP}); null when unknown (MariaDB records no time)
   */
  public record ReplicaView(String site, boolean answered, boolean configured, String ioState, Integer lastIoErrno,
      String lastIoError, String sourceServerId, Duration silence, String progress, boolean progressCountsHeartbeats,
      Instant at, Duration lastIoErrorAge) {

    public ReplicaView {
      Objects.requireNonNull(site, "site");
      Objects.requireNonNull(at, "at");
    }

    /** A view whose error is undated. */
    public ReplicaView(String site, boolean answered, boolean configured, String ioState, Integer lastIoErrno,
        String lastIoError, String sourceServerId, Duration silence, String progress, boolean progressCountsHeartbeats,
        Instant at) {
      this(site, answered, configured, ioState, lastIoErrno, lastIoError, sourceServerId, silence, progress,
          progressCountsHeartbeats, at, null);
    }

    /** A replica that could not be asked. */
    public static ReplicaView unanswered(String site, String why, Instant at) {
      return new ReplicaView(site, false, false, null, null, why, null, null, null, false, at);
    }

    /**
     * When the last error happened by the watcher's clock: its age taken from when the watcher
     * read it, which is later than the replica's own reading by one round trip at most. Null when
     * undated.
     */
    Instant lastIoErrorAt() {
      return lastIoErrorAge == null ? null : at.minus(lastIoErrorAge);
    }

    boolean ioRunning() {
      return "Yes".equalsIgnoreCase(ioState);
    }

    boolean hasIoError() {
      return (lastIoErrno != null && lastIoErrno != 0) || (lastIoError != null && !lastIoError.isBlank());
    }

    /** Row r3t: the IO thread reached the source and failed in the TLS handshake. */
    boolean tlsError() {
      if (lastIoErrno != null && lastIoErrno == TLS_ERROR) {
        return true;
      }
      String m = lastIoError == null ? "" : lastIoError.toLowerCase(java.util.Locale.ROOT);
      return m.contains("ssl") || m.contains("tls") || m.contains("certificate");
    }

    boolean connectionError() {
      if (tlsError()) {
        return false;
      }
      if (lastIoErrno != null && CONNECTION_ERRORS.contains(lastIoErrno)) {
        return true;
      }
      String m = lastIoError == null ? "" : lastIoError.toLowerCase(java.util.Locale.ROOT);
      return m.contains("error connecting") || m.contains("error reconnecting") || m.contains("can't connect")
          || m.contains("lost connection");
    }
  }

  /**
   * The earliest read of a replica with the same progress as its latest, and that latest read: the
   * progress stood still from {@code first.at()} to {@code latest.at()} at least. The watcher keeps
   * one per replica, replacing {@code first} whenever the progress changes ({@link #next}).
   */
  public record Sampled(ReplicaView first, ReplicaView latest) {
    public Sampled {
      Objects.requireNonNull(latest, "latest");
    }

    /** The samples after one more read; {@code previous} may be null. */
    public static Sampled next(Sampled previous, ReplicaView read) {
      if (previous == null || !read.answered() || read.progress() == null || !previous.latest().answered()
          || !read.progress().equals(previous.latest().progress())) {
        return new Sampled(read, read);
      }
      return new Sampled(previous.first(), read);
    }

    /** A lower bound of the silence proven by two reads; null when one read is all there is. */
    Duration provenSilence() {
      if (first == null || first == latest || !latest.progressCountsHeartbeats() || latest.progress() == null) {
        return null;
      }
      return Duration.between(first.at(), latest.at());
    }

    /** Whether the progress moved between the previous read and this one. */
    boolean moved() {
      return first == latest;
    }
  }

  /**
   * The decision and why.
   *
   * @param outcome rows c1-c4
   * @param judged each replica's row r1-r8, by site, in the order given
   * @param reason one sentence: each replica's view
   */
  public record Result(Outcome outcome, Map<String, Judged> judged, String reason) {
    public Result {
      judged = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(judged));
    }

    public static Result notNeeded() {
      return new Result(Outcome.NOT_NEEDED, Map.of(), "the primary answers the watcher");
    }
  }

  /** As {@link #judge(Sampled, Instant, Instant, String, Duration, Instant)}, with the primary's last answer unknown. */
  public static Judged judge(Sampled s, Instant previousReadAt, Instant lostAt, String primaryServerId,
      Duration minSilence) {
    return judge(s, previousReadAt, lostAt, primaryServerId, minSilence, null);
  }

  /**
   * Rows r1-r8 for one replica. {@code previousReadAt} is when the replica was read before this
   * one (null if never): a progress that moved since then is RECEIVING only if that was within
   * {@code minSilence}. {@code primaryAnsweredAt} is when the primary last answered the watcher
   * (null if never): a connection error the replica dates before it is STALE (row r4). The date is
   * MySQL's {@code LAST_ERROR_TIMESTAMP}, read as an age by the replica's own clock, so no two
   * clocks are compared.
   */
  public static Judged judge(Sampled s, Instant previousReadAt, Instant lostAt, String primaryServerId,
      Duration minSilence, Instant primaryAnsweredAt) {
    ReplicaView v = s.latest();
    if (!v.answered()) {
      return Judged.NOT_ASKED;
    }
    if (!v.configured() || (!"Connecting".equalsIgnoreCase(v.ioState()) && !v.ioRunning() && !v.hasIoError())) {
      return Judged.NOT_ELIGIBLE;
    }
    if (primaryServerId != null && v.sourceServerId() != null && !primaryServerId.equals(v.sourceServerId())) {
      return Judged.NOT_ELIGIBLE;
    }
    if (!v.ioRunning()) {
      if (!v.hasIoError() || !v.connectionError()) {
        return Judged.UNSURE;
      }
      Instant erredAt = v.lastIoErrorAt();
      return erredAt != null && primaryAnsweredAt != null && erredAt.isBefore(primaryAnsweredAt) ? Judged.STALE
          : Judged.LOST;
    }
    Duration silence = v.silence();
    Duration proven = s.provenSilence();
    if ((silence != null && silence.compareTo(minSilence) >= 0)
        || (proven != null && proven.compareTo(minSilence) >= 0)) {
      return Judged.LOST;
    }
    if (silence != null && v.at().minus(silence).isAfter(lostAt)) {
      return Judged.RECEIVING;
    }
    if (s.moved() && previousReadAt != null && v.progress() != null && !previousReadAt.isBefore(lostAt)) {
      return Judged.RECEIVING;
    }
    return Judged.UNSURE;
  }

  /**
   * Rows c1-c4 before any poll after the replicas ({@code recheck} null), with the primary's last
   * answer unknown.
   */
  public static Result decide(boolean primaryAnswers, String primaryServerId, Instant lostAt, Duration minSilence,
      List<Asked> replicas) {
    return decide(primaryAnswers, primaryServerId, lostAt, minSilence, replicas, null, null);
  }

  /**
   * Rows c1-c4. {@code replicas} holds every site but the primary, each with its samples and when
   * it was read before its latest read (null if never); {@code lostAt} as for {@link #judge};
   * {@code primaryAnsweredAt} when the primary last answered the watcher (null if never); {@code
   * recheck} the poll of the primary taken after the replicas answered (rows c3-c3b), null before
   * it is taken.
   */
  public static Result decide(boolean primaryAnswers, String primaryServerId, Instant lostAt, Duration minSilence,
      List<Asked> replicas, Instant primaryAnsweredAt, Recheck recheck) {
    if (primaryAnswers) {
      return Result.notNeeded();
    }
    Map<String, Judged> judged = new LinkedHashMap<>();
    List<String> parts = new ArrayList<>();
    // The latest answer of a replica that lost the primary by its connection error (row r4): a
    // poll of the primary must begin after it to prove the error is not older than a restart.
    Instant lastErrorAnswer = null;
    for (Asked a : replicas) {
      ReplicaView v = a.samples().latest();
      Judged j = judge(a.samples(), a.previousReadAt(), lostAt, primaryServerId, minSilence, primaryAnsweredAt);
      judged.put(v.site(), j);
      parts.add("'" + v.site() + "' " + describe(j, a.samples()));
      if (j == Judged.LOST && !v.ioRunning() && (lastErrorAnswer == null || v.at().isAfter(lastErrorAnswer))) {
        lastErrorAnswer = v.at();
      }
    }
    String views = parts.isEmpty() ? "no other site" : String.join(", ", parts);
    long eligible = judged.values().stream().filter(j -> j == Judged.LOST || j == Judged.UNSURE
        || j == Judged.STALE || j == Judged.RECEIVING).count();
    if (judged.containsValue(Judged.RECEIVING)) {
      return new Result(Outcome.ALIVE, judged, views);
    }
    if (eligible == 0 || judged.values().stream().filter(j -> j == Judged.LOST).count() != eligible) {
      return new Result(Outcome.UNCONFIRMED, judged, views);
    }
    if (lastErrorAnswer == null) {
      return new Result(Outcome.CONFIRMED_DEAD, judged, views);
    }
    if (recheck == null || recheck.begunAt().isBefore(lastErrorAnswer)) {
      return new Result(Outcome.RECHECK, judged, views);
    }
    if (recheck.answered()) {
      return new Result(Outcome.NOT_NEEDED, judged, "the primary answered a poll begun after its replicas answered ("
          + views + "): their connection errors are older than its return");
    }
    return new Result(Outcome.CONFIRMED_DEAD, judged, views + "; a poll of it begun after they answered failed too");
  }

  /** A poll of the primary taken after the replicas answered (rows c3-c3b): when it began, whether it answered. */
  public record Recheck(Instant begunAt, boolean answered) {
    public Recheck {
      Objects.requireNonNull(begunAt, "begunAt");
    }
  }

  /**
   * Rows s1-s2: whether an emergency failover from the failed primary may start, given a poll of
   * it taken right before the start.
   */
  public static boolean startStands(Probe recheck) {
    return !recheck.reachable();
  }

  /** One replica for {@link #decide}. */
  public record Asked(Sampled samples, Instant previousReadAt) {}

  private static String describe(Judged j, Sampled s) {
    ReplicaView v = s.latest();
    return switch (j) {
      case NOT_ASKED -> "could not be asked" + (v.lastIoError() == null ? "" : " (" + v.lastIoError() + ")");
      case NOT_ELIGIBLE -> !v.configured() ? "does not replicate" : v.ioRunning() || "Connecting".equalsIgnoreCase(
          v.ioState()) ? "replicates from another source (" + v.sourceServerId() + ")" : "has its IO thread stopped";
      case LOST -> v.ioRunning() ? "heard nothing for " + silence(v, s) : "lost it (IO thread " + v.ioState()
          + ", error " + v.lastIoErrno() + ": " + firstLine(v.lastIoError()) + ")";
      case STALE -> "shows a connection error older than the primary's last answer (IO thread " + v.ioState()
          + ", error " + v.lastIoErrno() + " " + v.lastIoErrorAge().toMillis() + " ms ago)";
      case UNSURE -> v.ioRunning() ? "cannot tell yet how long it has heard nothing" : "is not sure (IO thread "
          + v.ioState() + (v.hasIoError() ? ", error " + v.lastIoErrno() + ": " + firstLine(v.lastIoError()) : "")
          + ")";
      // No figures: the sentence is the Degraded condition's message, rewritten only when it changes.
      case RECEIVING -> "still receives from it";
    };
  }

  private static String silence(ReplicaView v, Sampled s) {
    Duration d = v.silence() != null ? v.silence() : s.provenSilence();
    return d == null ? "a while" : "at least " + d.toMillis() + " ms";
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }

  /**
   * Rows p1-p5: whether {@code replica}'s poll, just taken, asks for the primary to be polled at
   * once; {@code primary} is the primary's observation before it (null when it has none).
   */
  public static boolean pollPrimaryNow(Probe replica, SiteObservation primary) {
    if (primary == null || primary.latest() == null || !primary.latest().reachable()
        || primary.lastReachable() == null) {
      return false;
    }
    if (!replica.reachable() || replica.sourceIoState() == null) {
      return false;
    }
    String primaryId = primary.lastReachable().serverId();
    if (primaryId == null || !primaryId.equals(replica.sourceServerId())) {
      return false;
    }
    ReplicaView v = new ReplicaView(replica.site(), true, true, replica.sourceIoState(), null, replica.sourceIoError(),
        replica.sourceServerId(), null, null, false, replica.at());
    return !v.ioRunning() && v.hasIoError() && v.connectionError();
  }

  /**
   * The site the matrix would fail over from: {@code activeSite}, or {@code lastFailoverTarget}
   * when none is recorded. Null when neither is.
   */
  public static String primaryOf(TopologyMatrix.Input in) {
    return primaryOf(in.activeSite(), in.lastFailoverTarget());
  }

  /** As {@link #primaryOf(TopologyMatrix.Input)}, from the status's two fields. */
  public static String primaryOf(String activeSite, String lastFailoverTarget) {
    return activeSite != null ? activeSite : lastFailoverTarget;
  }

  /**
   * The matrix with the confirmation applied (rows c1-c4 in the class comment): CONFIRMED_DEAD
   * makes the primary UNREACHABLE at once, ALIVE keeps it WRITABLE, and a Promote verdict's reason
   * names the path that decided. {@code result} null is NOT_NEEDED; RECHECK, a decision the
   * watcher has not finished, counts as UNCONFIRMED.
   */
  public static Verdict evaluate(TopologyMatrix.Input in, Result result) {
    Outcome outcome = result == null ? Outcome.NOT_NEEDED : result.outcome();
    String primary = primaryOf(in);
    SiteObservation o = primary == null ? null : in.sites().get(primary);
    // A read-only primary (a planned failover's fenced source, say) whose latest poll failed is
    // taken as dead on the replicas' word too: it is the same proof, and a fenced source that dies
    // hands its planned failover over to this emergency path (PlannedSourceDeath), which must not
    // wait out a second debounce. Only ALIVE needs a primary the watcher saw writable.
    if (o == null || o.answeringNow() || o.state() == SiteState.READ_ONLY && outcome != Outcome.CONFIRMED_DEAD) {
      outcome = Outcome.NOT_NEEDED;
    }
    switch (outcome) {
      case CONFIRMED_DEAD -> {
        Verdict v = TopologyMatrix.evaluate(with(in, primary, new SiteObservation(SiteState.UNREACHABLE, o.latest(),
            o.lastReachable())));
        return v instanceof Verdict.Promote p ? p.withReason("replicas confirmed: every replica that was receiving "
            + "from '" + primary + "' lost it (" + result.reason() + "); " + p.reason()) : v;
      }
      case ALIVE -> {
        SiteObservation kept = o.state() == SiteState.UNREACHABLE || o.state() == SiteState.UNKNOWN
            ? new SiteObservation(SiteState.WRITABLE, o.latest(), o.lastReachable()) : o;
        return TopologyMatrix.evaluate(with(in, primary, kept));
      }
      default -> {
        Verdict v = TopologyMatrix.evaluate(in);
        if (v instanceof Verdict.Promote p) {
          return p.withReason("debounce: " + in.config().failureThreshold()
              + " polls in a row failed (failureThreshold)"
              + (result == null || result.outcome() == Outcome.NOT_NEEDED ? "" : "; the replicas could not confirm: "
                  + result.reason())
              + "; " + p.reason());
        }
        return v;
      }
    }
  }

  /**
   * The message of the {@code PrimaryUnreachableFromWatcher} condition and Event: the watcher cannot
   * reach the primary, which the replicas still hear.
   */
  public static String cutOffMessage(String primary, Result result) {
    return "the watcher cannot reach the active site '" + primary + "' but its replicas still receive from it ("
        + result.reason() + "): no failover, no fence; checked again at every poll";
  }

  /** The input with one site's observation replaced. */
  static TopologyMatrix.Input with(TopologyMatrix.Input in, String site, SiteObservation o) {
    Map<String, SiteObservation> sites = new LinkedHashMap<>(in.sites());
    sites.put(site, o);
    return new TopologyMatrix.Input(in.config(), sites, in.activeSite(), in.lastPromotion(), in.lastFailoverTarget(),
        in.failoverRunning(), in.now(), in.promoteAnyway(), in.fenced());
  }

  /** {@code spec.minSourceSilence}, resolved. */
  public static Duration minSilence(GroupConfig config) {
    return config.minSourceSilence();
  }
}
