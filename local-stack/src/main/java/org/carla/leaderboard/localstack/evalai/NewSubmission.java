package org.carla.leaderboard.localstack.evalai;

import java.time.Instant;
import java.util.Objects;

/**
 * A participant's submission as the host-side control creates it: the team, the phase of the stand-in's challenge,
 * the image. {@code pksAsStrings} null = the stand-in's default for how the message carries the pks;
 * {@code submittedAt} null = now (a time in the past makes the challenge's history, as EvalAI keeps it).
 */
public record NewSubmission(long teamId, String teamName, long phasePk, String imageUri, Boolean pksAsStrings,
        Instant submittedAt) {

    public NewSubmission {
        Objects.requireNonNull(teamName, "teamName");
        Objects.requireNonNull(imageUri, "imageUri");
    }

    public NewSubmission(long teamId, String teamName, long phasePk, String imageUri, Boolean pksAsStrings) {
        this(teamId, teamName, phasePk, imageUri, pksAsStrings, null);
    }

    public static NewSubmission of(long teamId, String teamName, long phasePk, String imageUri) {
        return new NewSubmission(teamId, teamName, phasePk, imageUri, null);
    }

    public NewSubmission withPksAsStrings(boolean asStrings) {
        return new NewSubmission(teamId, teamName, phasePk, imageUri, asStrings, submittedAt);
    }

    /** Made at {@code at}, not now. */
    public NewSubmission submittedAt(Instant at) {
        return new NewSubmission(teamId, teamName, phasePk, imageUri, pksAsStrings, at);
    }
}
