package io.shipstream.failover.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * {@code GET /answers?site=<site>} on a sidecar, and {@code GET
 * /answers?namespace=<ns>&group=<name>&site=<site>} on the watcher: what this process lately
 * answered the sidecar of {@code site} when it asked for the active site, each answer a contact
 * that renews that sidecar's lease unless its view fences it. An emergency failover reads these
 * from every process that can renew the old primary's lease to learn when it last could have
 * been renewed (see {@code LastRenewal}).
 *
 * @param site the site asked about
 * @param upMillis how long this process has answered: nothing it answered before is known
 * @param view the view it answers with now (no {@code agoMillis}); null while it has none
 * @param answers its answers to {@code site}, newest first: how long ago, and the view it gave
 *     ({@code activeSite} null for an answer without one: a 204, or "never active")
 * @param answersComplete true when {@code answers} holds every answer to {@code site} since the
 *     start; false when older ones were let go, which the oldest listed then stands for
 * @param unnamed the same for askers that did not name their site (a sidecar of release 0.1.0):
 *     any of them may have been {@code site}'s
 * @param unnamedComplete as {@code answersComplete}, for {@code unnamed}
 */
@JsonPropertyOrder({"site", "upMillis", "view", "answers", "answersComplete", "unnamed", "unnamedComplete"})
public record AnswersReply(
    String site,
    Long upMillis,
    Answer view,
    List<Answer> answers,
    Boolean answersComplete,
    List<Answer> unnamed,
    Boolean unnamedComplete) {
  public AnswersReply {
    answers = answers == null ? List.of() : List.copyOf(answers);
    unnamed = unnamed == null ? List.of() : List.copyOf(unnamed);
  }

  /** One answer: how long ago (null for the current view), the active site it named, when that was observed. */
  @JsonPropertyOrder({"agoMillis", "activeSite", "observedAt"})
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Answer(Long agoMillis, String activeSite, String observedAt) {}
}
