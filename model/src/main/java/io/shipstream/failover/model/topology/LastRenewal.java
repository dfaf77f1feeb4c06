package io.shipstream.failover.model.topology;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * When the old primary's lease was last renewed, from what every process that can renew it says
 * it answered: the ground for counting an emergency failover's wait for an old primary nothing
 * confirmed fenced from its last renewal rather than from the naming of the candidate, which
 * comes detection and the stages before it later (15 s or more when its region goes dark).
 *
 * <p>A sidecar's lease (rule 2) is renewed by every answer it counts as a contact, from the
 * watcher (any replica: the sidecars reach them through a Service) or from a peer, unless the view
 * in that answer fences it (rule 1: it names another site and is newer than the one the sidecar
 * holds). Each such process logs its answers by the site that asked ({@code AnswerLog}); the
 * failover reads every log. What this rests on, each checked here or said to the caller:
 *
 * <ul>
 *   <li>Every renewer is read: one that cannot be read may be renewing still, so there is no
 *       anchor ({@link Unknown}); the caller keeps the wait counted from the naming. Which
 *       processes are every renewer (the spec's other sites' sidecars, every watcher replica) is
 *       the caller's to know.
 *   <li>No renewer renews after it is read: each must answer now with a view that fences the old
 *       primary (names the target, observed after the naming less {@code skew} and after every view
 *       the old primary may hold); one that does not may renew it yet ({@link Unknown}).
 *   <li>What a log no longer holds is older than what it holds: a log that let answers go stands
 *       for them by its oldest; one that holds all since its process started stands for a process
 *       before it by that start.
 *   <li>An answer to an asker that named no site (a sidecar of release 0.1.0) may have been the
 *       old primary's.
 *   <li>Times: each answer is placed at the reader's receipt of the reply less its age, never
 *       before it was given; a sidecar counts the contact when the answer reaches it, within its
 *       request's timeout after the answer was given, which the caller adds.
 * </ul>
 *
 * <pre>
 * | a renewer's reading                                  | its last renewal of the old primary  |
 * |------------------------------------------------------|--------------------------------------|
 * | could not be read                                    | unknown: no anchor                   |
 * | its view now does not fence the old primary          | unknown: it may renew yet            |
 * | an answer that did not fence it                      | the newest such answer               |
 * | only fencing answers, the log let older ones go      | the oldest answer it holds           |
 * | only fencing answers or none, the log is complete    | the renewer's start                  |
 * </pre>
 *
 * The anchor is the latest over every renewer. Pure: every row is tested.
 */
public final class LastRenewal {
  private LastRenewal() {}

  /** A view: the active site it names and when the watcher observed that. */
  public record View(String activeSite, Instant observedAt) {
    public View {
      Objects.requireNonNull(activeSite, "activeSite");
      Objects.requireNonNull(observedAt, "observedAt");
    }
  }

  /** One logged answer: how long before the reply it was given, and its view (null for none). */
  public record Answer(Duration ago, View view) {
    public Answer {
      Objects.requireNonNull(ago, "ago");
    }
  }

  /**
   * What one renewer said, or why it could not be read ({@code problem} non-null, the rest unused).
   *
   * @param renewer its name, for the messages ("watcher 10.0.0.7", "the sidecar of pdx")
   * @param receivedAt when the reader received the reply, by the reader's clock
   * @param up how long the renewer's process had run
   * @param view the view it answers with now; null for none
   * @param answers its answers to the old primary's site, newest first
   * @param answersComplete whether {@code answers} holds every one since its start
   * @param unnamed its answers to askers that named no site, newest first
   * @param unnamedComplete whether {@code unnamed} holds every one since its start
   */
  public record Reading(String renewer, String problem, Instant receivedAt, Duration up, View view,
      List<Answer> answers, boolean answersComplete, List<Answer> unnamed, boolean unnamedComplete) {
    public Reading {
      Objects.requireNonNull(renewer, "renewer");
      answers = answers == null ? List.of() : List.copyOf(answers);
      unnamed = unnamed == null ? List.of() : List.copyOf(unnamed);
    }

    /** A renewer that could not be read. */
    public static Reading unread(String renewer, String problem) {
      return new Reading(renewer, Objects.requireNonNull(problem, "problem"), null, null, null, List.of(), false,
          List.of(), false);
    }
  }

  /** The outcome: an anchor, or why there is none. */
  public sealed interface Outcome permits Anchored, Unknown {}

  /**
   * The old primary's lease was last renewed no later than {@code at} (before the sidecar's
   * receipt, which the caller adds), by the reading of {@code renewer}.
   */
  public record Anchored(Instant at, String renewer, String basis) implements Outcome {}

  /** No anchor: the wait stays counted from the naming. */
  public record Unknown(String why) implements Outcome {}

  /**
   * The last renewal of {@code oldSite}'s lease, from {@code readings} of every renewer, once
   * {@code target} was named active at {@code namedAt} (by the reader's clock; {@code skew} is how
   * far the watchers' clocks, which stamp the views, may be from it).
   */
  public static Outcome of(String oldSite, String target, Instant namedAt, Duration skew, List<Reading> readings) {
    if (readings.isEmpty()) {
      return new Unknown("no process that can renew the lease of " + oldSite + " was named to be read");
    }
    for (Reading r : readings) {
      if (r.problem() != null) {
        return new Unknown(r.renewer() + " could not be read (" + r.problem() + "): it may renew the lease of "
            + oldSite + " still");
      }
    }
    Instant floor = fencingFloor(target, namedAt.minus(skew), readings);
    for (Reading r : readings) {
      if (!fences(r.view(), target, floor)) {
        return new Unknown(r.renewer() + " answers with " + describe(r.view()) + ", which does not fence " + oldSite
            + " (a view naming " + target + " observed after " + floor + " would): it may renew its lease yet");
      }
    }
    Latest latest = null;
    String by = null;
    for (Reading r : readings) {
      Instant start = r.receivedAt().minus(r.up());
      Latest named = last(r.answers(), r.answersComplete(), r.receivedAt(), target, floor, start, "to " + oldSite);
      Latest unnamed = last(r.unnamed(), r.unnamedComplete(), r.receivedAt(), target, floor, start,
          "to a sidecar that named no site");
      Latest mine = unnamed.at().isAfter(named.at()) ? unnamed : named;
      if (latest == null || mine.at().isAfter(latest.at())) {
        latest = mine;
        by = r.renewer();
      }
    }
    return new Anchored(latest.at(), by, by + ": " + latest.why() + " at " + latest.at() + ", the latest of "
        + readings.size() + " renewer(s) read");
  }

  private record Latest(Instant at, String why) {}

  /**
   * A view fences the old primary when it names the target and was observed after {@code floor}:
   * newer than the naming (less the clocks' skew) and than every other view the old primary may
   * have been given, so its sidecar takes it over the one it holds.
   */
  static boolean fences(View view, String target, Instant floor) {
    return view != null && view.activeSite().equals(target) && view.observedAt().isAfter(floor);
  }

  /** The later of {@code notBefore} and every logged view that names another site than the target. */
  private static Instant fencingFloor(String target, Instant notBefore, List<Reading> readings) {
    Instant floor = notBefore;
    for (Reading r : readings) {
      List<Answer> all = new ArrayList<>(r.answers());
      all.addAll(r.unnamed());
      for (Answer a : all) {
        if (a.view() != null && !a.view().activeSite().equals(target) && !a.view().observedAt().isBefore(floor)) {
          floor = a.view().observedAt();
        }
      }
    }
    return floor;
  }

  /** The table's rows for one list: the newest answer that did not fence, else its oldest, else the start. */
  private static Latest last(List<Answer> answers, boolean complete, Instant receivedAt, String target, Instant floor,
      Instant start, String whom) {
    for (Answer a : answers) {
      if (!fences(a.view(), target, floor)) {
        return new Latest(receivedAt.minus(a.ago()), "an answer " + whom + " that did not fence it");
      }
    }
    if (!complete && !answers.isEmpty()) {
      return new Latest(receivedAt.minus(answers.get(answers.size() - 1).ago()),
          "the oldest answer " + whom + " it holds (it let older ones go)");
    }
    return new Latest(start, "its start (no answer " + whom + " since that did not fence it)");
  }

  private static String describe(View view) {
    return view == null ? "no view" : "a view naming " + view.activeSite() + " observed at " + view.observedAt();
  }
}
