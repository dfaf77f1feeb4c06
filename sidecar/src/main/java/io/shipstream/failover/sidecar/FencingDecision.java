package io.shipstream.failover.sidecar;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the sidecar does to its MySQL on one tick, from what it knows: pure, so every combination
 * is tested without a server or a network.
 *
 * <ul>
 *   <li>Rule 1: the authoritative active site is another site and MySQL is writable: fence now.
 *   <li>Rule 2: the watcher and every peer have been silent for longer than the lease: fence.
 *   <li>Operator: the view says a DBA fenced this site ({@code status.fencedSites}) and MySQL is
 *       writable: fence, even on the active site (fencing it stops the group's writes on purpose).
 *       A fenced site is never unfenced by the sidecar: no boot fence or start-up read-only is
 *       lifted while the view fences it. The one grace: the active site turning writable while a
 *       view still fences it is the watcher's unfence (it lifts read_only just before the status
 *       drops the site), covered by the promotion grace below; a fenced replica gets none.
 *   <li>Stop: a server that does not answer but whose process is alive (frozen, stalled, paused by
 *       its hypervisor) and that may be writable is killed when rule 1 or rule 2 would fence it:
 *       "unreachable" is not "takes no writes", and such a server commits what it holds the moment
 *       it resumes. It restarts read-only (servers are configured to start read-only).
 *   <li>A read-only MySQL is never touched, except to undo the sidecar's own boot fence or the
 *       server's start-up read-only: the read_only that the server's configuration set when it
 *       started, which no statement has touched since and on a server that replicates from nobody,
 *       is lifted once a live view names this site (a restarted primary). A read_only anybody set
 *       by a statement (rule 1 or 2, the failover, an operator) is never lifted by the sidecar.
 *   <li>Boot: a writable MySQL is fenced unless the sidecar already knows its site is the active
 *       one, or the watcher said the group has never had an active site; a boot fence is undone
 *       once a view names this site, or once the watcher says that.
 *   <li>Never active: while the watcher says the group has never recorded an active site (it is
 *       about to adopt the running primary) and no view names one, rule 1 has no site to act on
 *       and the boot rule stands aside, so installing the product never stops the application's
 *       writes. Rule 2 still applies: that answer is a contact like any other, and silence is not.
 *   <li>A promotion in progress: a server the sidecar saw turn writable (someone with admin rights
 *       did it) while the view still named another site may be a failover's target whose record
 *       the sidecar's view has not caught up with. Both workflows name the target active before
 *       they make it writable, so the sidecar asks the watcher at once for a fresh view, read from
 *       the API server after the server turned writable ({@link #afterFreshView}): one naming this
 *       site is the promotion (the view is adopted), one naming another site refutes it and rule 1
 *       fences at once. Only when no fresh view can be had (the watcher does not answer, or is too
 *       old to read one) does the bounded grace stand: one tick and a second, never the lease.
 *   <li>Deleted: the watcher said the group was deleted (the tombstone its finalizer wrote): the
 *       sidecar guards nothing any more and touches its server no more, neither fences nor unfences
 *       nor stops it, whatever the view or the lease says. The application's writes go on where
 *       they went (the deletion leaves the routing in place), and a DBA decides from there. A 404
 *       from the watcher is not this: it is no answer, and every other rule stands.
 * </ul>
 *
 * <p>The server's states: WRITABLE, READ_ONLY (set by a statement), STARTUP_READ_ONLY (see
 * above), HUNG (no answer, its process alive and the sidecar able to stop it, and it may be
 * writable: it never answered, or last answered writable), UNREACHABLE (no answer and nothing
 * the sidecar can do: it cannot see the process, or the server last answered read-only), STOPPED
 * (no answer, and the process the sidecar saw serving it has exited: it takes no writes).
 */
public final class FencingDecision {

  public enum Action {
    NONE,
    FENCE_AT_BOOT,
    FENCE_RULE1,
    FENCE_RULE2,
    /** A DBA fenced this site (the view's fencedSites) and its server is writable. */
    FENCE_OPERATOR,
    UNFENCE_AT_BOOT,
    /** Lift the server's own start-up read-only: this site is the active one. */
    UNFENCE_STARTUP,
    /** Kill the hung server's process: rule 1 or rule 2 would fence it, and it cannot be reached. */
    STOP_SERVER;

    public boolean fences() {
      return this == FENCE_AT_BOOT || this == FENCE_RULE1 || this == FENCE_RULE2 || this == FENCE_OPERATOR;
    }

    /** The {@code rule} label of the fence counter. */
    public String rule() {
      return switch (this) {
        case FENCE_AT_BOOT -> "boot";
        case FENCE_RULE1 -> "rule1";
        case FENCE_RULE2 -> "rule2";
        case FENCE_OPERATOR -> "operator";
        default -> throw new IllegalStateException(this + " is not a fence");
      };
    }
  }

  /** What the local server looked like on this tick. */
  public enum MysqlState {
    WRITABLE, READ_ONLY, STARTUP_READ_ONLY, HUNG, UNREACHABLE, STOPPED;

    /** The server answered. */
    public boolean answered() {
      return this == WRITABLE || this == READ_ONLY || this == STARTUP_READ_ONLY;
    }

    /** Read-only, by a statement or by its start-up configuration. */
    public boolean readOnly() {
      return this == READ_ONLY || this == STARTUP_READ_ONLY;
    }

    /** What proves to a failover that this server takes no writes: it answered read-only, or it is dead. */
    public boolean takesNoWrites() {
      return readOnly() || this == STOPPED;
    }
  }

  /**
   * Where the sidecar is in its boot: PENDING until it has seen its MySQL once, FENCED_BY_BOOT
   * while its own boot fence stands, DONE after.
   */
  public enum Boot { PENDING, FENCED_BY_BOOT, DONE }

  /**
   * The sidecar saw its server turn writable, not by its own hand, while the view named {@code
   * site}: rule 1 holds off for that site until {@code until}, unless a fresh view {@code refuted}
   * it (named another site after the server turned writable, so no failover to this site is
   * recorded, and none can be about to make it writable).
   */
  public record Promotion(String site, Instant until, boolean refuted) {
    public Promotion {
      Objects.requireNonNull(site, "site");
      Objects.requireNonNull(until, "until");
    }

    /** Not checked against a fresh view yet. */
    public Promotion(String site, Instant until) {
      this(site, until, false);
    }
  }

  /**
   * What a fresh view makes of a promotion in progress. {@code fresh} is the watcher's view read
   * from the API server after the server was seen writable, empty when none could be had:
   *
   * <pre>
   * | fresh view                          | promotion                                              |
   * |-------------------------------------|--------------------------------------------------------|
   * | none (no answer, or not fresh)      | unchanged: the bounded grace is the fallback           |
   * | names this site, does not fence it  | gone: it is the promotion, and the view names the site |
   * | names this site and fences it       | unchanged: the watcher's unfence of a fenced active    |
   * |                                     |   site (it lifts read_only just before the status      |
   * |                                     |   drops the site), which the grace covers              |
   * | names another site                  | refuted: rule 1 fences now                             |
   * </pre>
   */
  public static Optional<Promotion> afterFreshView(Promotion promotion, Optional<ActiveSiteView> fresh,
      String ownSite) {
    if (fresh.isEmpty()) {
      return Optional.of(promotion);
    }
    ActiveSiteView view = fresh.get();
    if (!view.names(ownSite)) {
      return Optional.of(new Promotion(promotion.site(), promotion.until(), true));
    }
    return view.fences(ownSite) ? Optional.of(promotion) : Optional.empty();
  }

  /**
   * Everything one decision needs. {@code startedAt} stands in for a contact when there has been
   * none yet, so a sidecar that never hears from anyone still has a lease that runs out. {@code
   * neverActive} is the watcher's last word that the group has never recorded an active site; it
   * counts only while no view names a site.
   */
  public record Inputs(
      Instant now,
      String ownSite,
      Optional<ActiveSiteView> view,
      Instant startedAt,
      Optional<Instant> lastWatcherContact,
      Collection<Instant> lastPeerContacts,
      Duration leaseTimeout,
      MysqlState mysql,
      Boot boot,
      Optional<Promotion> promotion,
      boolean neverActive,
      boolean groupDeleted) {

    /** In a group that exists, as far as the watcher said. */
    public Inputs(Instant now, String ownSite, Optional<ActiveSiteView> view, Instant startedAt,
        Optional<Instant> lastWatcherContact, Collection<Instant> lastPeerContacts, Duration leaseTimeout,
        MysqlState mysql, Boot boot, Optional<Promotion> promotion, boolean neverActive) {
      this(now, ownSite, view, startedAt, lastWatcherContact, lastPeerContacts, leaseTimeout, mysql, boot, promotion,
          neverActive, false);
    }

    /** Without a promotion in progress, in a group that has had an active site: the usual case. */
    public Inputs(Instant now, String ownSite, Optional<ActiveSiteView> view, Instant startedAt,
        Optional<Instant> lastWatcherContact, Collection<Instant> lastPeerContacts, Duration leaseTimeout,
        MysqlState mysql, Boot boot) {
      this(now, ownSite, view, startedAt, lastWatcherContact, lastPeerContacts, leaseTimeout, mysql, boot,
          Optional.empty());
    }

    /** In a group that has had an active site. */
    public Inputs(Instant now, String ownSite, Optional<ActiveSiteView> view, Instant startedAt,
        Optional<Instant> lastWatcherContact, Collection<Instant> lastPeerContacts, Duration leaseTimeout,
        MysqlState mysql, Boot boot, Optional<Promotion> promotion) {
      this(now, ownSite, view, startedAt, lastWatcherContact, lastPeerContacts, leaseTimeout, mysql, boot,
          promotion, false);
    }

    public Inputs {
      Objects.requireNonNull(now, "now");
      Objects.requireNonNull(ownSite, "ownSite");
      Objects.requireNonNull(view, "view");
      Objects.requireNonNull(startedAt, "startedAt");
      Objects.requireNonNull(lastWatcherContact, "lastWatcherContact");
      lastPeerContacts = List.copyOf(lastPeerContacts);
      Objects.requireNonNull(leaseTimeout, "leaseTimeout");
      Objects.requireNonNull(mysql, "mysql");
      Objects.requireNonNull(boot, "boot");
      Objects.requireNonNull(promotion, "promotion");
    }

    /** Whether the view names the very site a promotion started under, and its grace has not run out. */
    public boolean promotionInProgress() {
      return promotion.isPresent() && !promotion.get().refuted() && view.isPresent()
          && view.get().names(promotion.get().site()) && !now.isAfter(promotion.get().until());
    }

    /** The newest sign of life from the watcher or any peer, or the start when there was none. */
    public Instant lastContact() {
      return FencingDecision.lastContact(startedAt, lastWatcherContact, lastPeerContacts);
    }

    /** The watcher said the group has never had an active site, and no view has named one since. */
    public boolean groupNeverActive() {
      return neverActive && view.isEmpty();
    }

    /** Strictly longer than the lease: a contact exactly leaseTimeout ago still holds it. */
    public boolean leaseExpired() {
      return FencingDecision.leaseExpired(lastContact(), now, leaseTimeout);
    }
  }

  private FencingDecision() {}

  /** Strictly longer than the lease since the last contact: a contact exactly leaseTimeout ago still holds it. */
  public static boolean leaseExpired(Instant lastContact, Instant now, Duration leaseTimeout) {
    return Duration.between(lastContact, now).compareTo(leaseTimeout) > 0;
  }

  /** The newest of the contacts, or {@code startedAt} when there was none after it. */
  public static Instant lastContact(Instant startedAt, Optional<Instant> watcher, Collection<Instant> peers) {
    Instant last = startedAt;
    if (watcher.isPresent() && watcher.get().isAfter(last)) {
      last = watcher.get();
    }
    for (Instant peer : peers) {
      if (peer.isAfter(last)) {
        last = peer;
      }
    }
    return last;
  }

  public static Action decide(Inputs in) {
    if (in.groupDeleted()) {
      return Action.NONE;
    }
    boolean activeHere = in.view().map(v -> v.names(in.ownSite())).orElse(false);
    boolean activeElsewhere = in.view().map(v -> !v.names(in.ownSite())).orElse(false);
    boolean fencedHere = in.view().map(v -> v.fences(in.ownSite())).orElse(false);
    boolean expired = in.leaseExpired();
    switch (in.mysql()) {
      case UNREACHABLE, STOPPED:
        // Nothing can be done to a server we cannot reach, nor needs to be to one that is dead.
        return Action.NONE;
      case HUNG:
        // What rule 1 or rule 2 would do to it if it answered, done the only way left.
        return activeElsewhere && !in.promotionInProgress() || expired ? Action.STOP_SERVER : Action.NONE;
      default:
        break;
    }
    boolean writable = in.mysql() == MysqlState.WRITABLE;
    switch (in.boot()) {
      case PENDING:
        if (!writable) {
          return liftStartup(in, activeHere && !fencedHere, expired);
        }
        // The first tick has already asked the watcher and the peers: when they say this site is
        // active, fencing only to unfence a tick later would kill the primary's sessions for nothing.
        // A group that has never had an active site is being adopted: its writable server is the
        // application's primary, and no failover can have named another.
        return (activeHere || in.groupNeverActive()) && !expired && !fencedHere ? Action.NONE : Action.FENCE_AT_BOOT;
      case FENCED_BY_BOOT:
        if (!writable) {
          // A boot fence set before the watcher answered (it was not synced yet, or not reachable)
          // is lifted once it says the group has never been active, as if it had answered in time.
          // A start-up read-only is the server's own, not the boot fence: only a view lifts that.
          boolean waived = in.groupNeverActive() && in.mysql() == MysqlState.READ_ONLY;
          return (activeHere || waived) && !expired && !fencedHere ? Action.UNFENCE_AT_BOOT : Action.NONE;
        }
        // Someone else (the operator's promotion) made it writable: the steady-state rules apply.
        break;
      default:
        break;
    }
    if (!writable) {
      return liftStartup(in, activeHere && !fencedHere, expired);
    }
    if (activeElsewhere && (!in.promotionInProgress() || fencedHere)) {
      // A fenced replica is never promoted: someone made it writable by hand, no grace.
      return Action.FENCE_RULE1;
    }
    if (fencedHere && !in.promotionInProgress()) {
      return Action.FENCE_OPERATOR;
    }
    if (expired) {
      return Action.FENCE_RULE2;
    }
    return Action.NONE;
  }

  /** A restarted primary's start-up read-only goes once a live view names this site. */
  private static Action liftStartup(Inputs in, boolean activeHere, boolean expired) {
    return in.mysql() == MysqlState.STARTUP_READ_ONLY && activeHere && !expired ? Action.UNFENCE_STARTUP
        : Action.NONE;
  }

  /** The boot state after {@code action} succeeded on a server seen in state {@code mysql}. */
  public static Boot nextBoot(Boot boot, MysqlState mysql, Action action) {
    if (!mysql.answered()) {
      return boot;
    }
    return switch (boot) {
      case PENDING -> action == Action.FENCE_AT_BOOT ? Boot.FENCED_BY_BOOT : Boot.DONE;
      case FENCED_BY_BOOT -> action == Action.UNFENCE_AT_BOOT || mysql == MysqlState.WRITABLE ? Boot.DONE : boot;
      case DONE -> Boot.DONE;
    };
  }
}
