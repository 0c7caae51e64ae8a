package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** ingest-service decided not to run a run of a submission; results-relay still reports its final status. */
@RegisterForReflection
public record NotLaunched(int version, SubmissionIdentity submission, int run, Reason reason, String detail,
        Instant at) implements SubmissionEvent {

    public static final String TYPE = "not-launched";

    public enum Reason {
        /** EvalAI already shows the submission cancelled. */
        CANCELLED,
        /** The track is gated by a qualifier the team has not passed. */
        NOT_ALLOWED
    }

    public NotLaunched {
        Require.version(version);
        Require.present(submission, "submission");
        Require.run(run);
        Require.present(reason, "reason");
        Require.present(at, "at");
    }

    public static NotLaunched of(SubmissionIdentity submission, int run, Reason reason, String detail, Instant at) {
        return new NotLaunched(EventCodec.VERSION, submission, run, reason, detail, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
