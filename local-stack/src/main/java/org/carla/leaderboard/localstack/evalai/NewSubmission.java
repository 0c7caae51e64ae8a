package org.carla.leaderboard.localstack.evalai;

import java.util.Objects;

/**
 * A participant's submission as the host-side control creates it: the team, the phase of the stand-in's challenge,
 * the image. {@code pksAsStrings} null = the stand-in's default for how the message carries the pks.
 */
public record NewSubmission(long teamId, String teamName, long phasePk, String imageUri, Boolean pksAsStrings) {

    public NewSubmission {
        Objects.requireNonNull(teamName, "teamName");
        Objects.requireNonNull(imageUri, "imageUri");
    }

    public static NewSubmission of(long teamId, String teamName, long phasePk, String imageUri) {
        return new NewSubmission(teamId, teamName, phasePk, imageUri, null);
    }

    public NewSubmission withPksAsStrings(boolean asStrings) {
        return new NewSubmission(teamId, teamName, phasePk, imageUri, asStrings);
    }
}
