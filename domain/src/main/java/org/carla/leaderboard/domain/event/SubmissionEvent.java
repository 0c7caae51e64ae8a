package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * The lifecycle events on {@code submission-events}, read by results-relay: the run's pod is running
 * ({@code job-started}), the run's Job ended ({@code job-finished}), or the run was not launched ({@code not-launched}).
 * Only ingest-service and job-launcher send to that queue (their roles alone may); what submission pods report goes to
 * {@code progress-reports} as {@link Progress}, a message of another trust level. Every event names the run of the
 * submission it is about: results-relay acts only on the events of the record's current run.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = JobStarted.class, name = JobStarted.TYPE),
        @JsonSubTypes.Type(value = JobFinished.class, name = JobFinished.TYPE),
        @JsonSubTypes.Type(value = NotLaunched.class, name = NotLaunched.TYPE)
})
public sealed interface SubmissionEvent permits JobStarted, JobFinished, NotLaunched {

    int version();

    SubmissionIdentity submission();

    /** The run of the submission the event is about: 1 for the first launch, then one more for each resume. */
    int run();

    /** When the producer observed what the event reports. */
    Instant at();

    /** The event's type as written in its JSON form and in the message's {@code type} attribute. */
    String type();
}
