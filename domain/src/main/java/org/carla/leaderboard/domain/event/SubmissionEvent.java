package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * The events on {@code submission-events}, read by results-relay: the Job started, a progress report from logcopy, the
 * Job finished, or the submission was not launched. The JSON form carries {@code "type"}: {@code job-started},
 * {@code progress}, {@code job-finished}, {@code not-launched}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = JobStarted.class, name = JobStarted.TYPE),
        @JsonSubTypes.Type(value = Progress.class, name = Progress.TYPE),
        @JsonSubTypes.Type(value = JobFinished.class, name = JobFinished.TYPE),
        @JsonSubTypes.Type(value = NotLaunched.class, name = NotLaunched.TYPE)
})
public sealed interface SubmissionEvent permits JobStarted, Progress, JobFinished, NotLaunched {

    int version();

    SubmissionIdentity submission();

    /** When the producer observed what the event reports. */
    Instant at();

    /** The event's type as written in its JSON form. */
    String type();
}
