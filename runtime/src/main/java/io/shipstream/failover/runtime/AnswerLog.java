package io.shipstream.failover.runtime;

import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.AnswersReply.Answer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What a process that renews sidecars' leases (the watcher's {@code /active-site}, a sidecar's
 * {@code /peer/active-site}) answered each asking sidecar lately: every answer is a contact that
 * keeps the asker's lease, unless the view it carries fences the asker. The newest {@link
 * #PER_ASKER} answers are kept per asking site, by this process's monotonic clock, so that an
 * emergency failover can learn when the old primary's lease was last renewed rather than assume
 * it was renewed until the failover named another site. Read as {@link AnswersReply}.
 *
 * <p>An asker that does not name its site (a sidecar of release 0.1.0), names one longer than a
 * DNS name, or comes after {@link #MAX_ASKERS} others is kept as {@link #UNNAMED}, which a reader
 * counts as any site's: so nothing a renewal could hide behind is lost. Thread-safe.
 */
public final class AnswerLog {
  /** Answers kept per asker: at one answer per peer-check interval (5 s by default), over a minute. */
  public static final int PER_ASKER = 16;
  /** Askers kept by name; answers to any further one are kept as {@link #UNNAMED}. */
  public static final int MAX_ASKERS = 64;
  /** The key of the answers to askers that did not name their site. */
  public static final String UNNAMED = "";
  private static final int MAX_SITE_LENGTH = 253;

  private final LongSupplier nanos;
  private final long startedNanos;
  private final Map<String, Kept> askers = new HashMap<>();

  public AnswerLog() {
    this(System::nanoTime);
  }

  /** With {@code nanos} as the monotonic clock (tests). */
  public AnswerLog(LongSupplier nanos) {
    this(nanos, nanos.getAsLong());
  }

  /**
   * With {@code nanos} as the monotonic clock, counting the up time from {@code startedNanos}, a
   * reading of {@code nanos} taken before this process could answer anyone: for a log made only
   * once its first answer is given, so that its up time still bounds every answer the process
   * gave (made with its own start, it would claim that none came before it).
   */
  public AnswerLog(LongSupplier nanos, long startedNanos) {
    this.nanos = nanos;
    this.startedNanos = startedNanos;
  }

  /**
   * Records that {@code asker} was answered now with a view naming {@code activeSite} observed at
   * {@code observedAt}; both null for an answer without a view (a peer's 204, the watcher's
   * "never active" or "deleted").
   */
  public void answered(String asker, String activeSite, Instant observedAt) {
    long now = nanos.getAsLong();
    synchronized (askers) {
      String key = key(asker);
      Kept kept = askers.get(key);
      if (kept == null && !key.equals(UNNAMED) && named() >= MAX_ASKERS) {
        key = UNNAMED;
        kept = askers.get(UNNAMED);
      }
      if (kept == null) {
        kept = new Kept();
        askers.put(key, kept);
      }
      kept.add(new Entry(now, activeSite, observedAt == null ? null : observedAt.toString()));
    }
  }

  /**
   * The answers to {@code site} and to unnamed askers, newest first, with the view this process
   * answers with now ({@code viewActiveSite} null when it has none).
   */
  public AnswersReply read(String site, String viewActiveSite, Instant viewObservedAt) {
    long now = nanos.getAsLong();
    Answer view = viewActiveSite == null ? null
        : new Answer(null, viewActiveSite, viewObservedAt == null ? null : viewObservedAt.toString());
    String key = key(site);
    synchronized (askers) {
      Kept named = key.equals(UNNAMED) ? null : askers.get(key);
      Kept unnamed = askers.get(UNNAMED);
      return new AnswersReply(site, millis(now - startedNanos), view, answers(named, now),
          named == null || !named.dropped, answers(unnamed, now), unnamed == null || !unnamed.dropped);
    }
  }

  private int named() {
    return askers.size() - (askers.containsKey(UNNAMED) ? 1 : 0);
  }

  private static List<Answer> answers(Kept kept, long now) {
    List<Answer> out = new ArrayList<>();
    if (kept != null) {
      for (Iterator<Entry> it = kept.entries.descendingIterator(); it.hasNext();) {
        Entry e = it.next();
        out.add(new Answer(millis(now - e.nanos), e.activeSite, e.observedAt));
      }
    }
    return out;
  }

  /** Rounded up, so that an answer is never made out to be older than it is. */
  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos + 999_999);
  }

  private static String key(String site) {
    return site == null || site.isBlank() || site.length() > MAX_SITE_LENGTH ? UNNAMED : site;
  }

  private record Entry(long nanos, String activeSite, String observedAt) {}

  /** One asker's newest answers, oldest first; {@code dropped} once an older one was let go. */
  private static final class Kept {
    final Deque<Entry> entries = new ArrayDeque<>();
    boolean dropped;

    void add(Entry e) {
      if (entries.size() == PER_ASKER) {
        entries.removeFirst();
        dropped = true;
      }
      entries.addLast(e);
    }
  }
}
