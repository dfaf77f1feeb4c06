package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * One entry of {@code status.plannedFailover.channels} and {@code status.emergencyFailover.channels}:
 * a replication channel the failover re-pointed, read back from the replica's server once it ran.
 * With the source requiring secure transport, {@code ssl} and {@code ioConnected} together prove the
 * channel is encrypted: the source accepts no other connection. {@code asGroupAsks} is false, and
 * {@code problem} says why, when the channel is weaker than the group's replication TLS, is not
 * connected, or could not be read; that is a warning, never a failed failover.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChannelCheck(
    @JsonPropertyDescription("The replica's site.") String site,
    @JsonPropertyDescription("The site it replicates from: the new primary.") String source,
    @JsonPropertyDescription("The replication TLS mode the group asks for this channel.") String mode,
    @JsonPropertyDescription("SSL on the channel, as the replica reports it.") Boolean ssl,
    @JsonPropertyDescription("The CA file the channel checks the source against, if any.") String caFile,
    @JsonPropertyDescription("The replica's client certificate file, if any.") String certFile,
    @JsonPropertyDescription("Whether the channel checks the source's name.") Boolean verifyServerCert,
    @JsonPropertyDescription("Whether its IO thread was connected to the source when read.") Boolean ioConnected,
    @JsonPropertyDescription("True when the channel is at least as strong as the group asks and connected.")
    Boolean asGroupAsks,
    @JsonPropertyDescription("Why asGroupAsks is false: weaker, not connected, or not readable.") String problem) {

  /** A channel that could not be read: nothing is known about it but why. */
  public static ChannelCheck unreadable(String site, String source, String mode, String why) {
    return new ChannelCheck(site, source, mode, null, null, null, null, null, false, "not read: " + why);
  }
}
