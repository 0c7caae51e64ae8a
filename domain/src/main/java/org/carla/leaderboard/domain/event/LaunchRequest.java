package org.carla.leaderboard.domain.event;

import java.time.Instant;

import org.carla.leaderboard.domain.track.TrackSpec;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What ingest-service asks job-launcher to run: one run of one submission, on one track, from one image. Published on
 * {@code launch-requests}; everything the Job needs is here. {@code run} is the record's run when the request was
 * made: job-launcher refuses a request whose run has ended or been superseded, however late it arrives.
 */
@RegisterForReflection
public record LaunchRequest(int version, SubmissionIdentity submission, int run, String imageUri, boolean resume,
        TrackSpec trackSpec, Instant requestedAt) {

    public static final String TYPE = "launch";

    public LaunchRequest {
        Require.version(version);
        Require.present(submission, "submission");
        Require.run(run);
        Require.text(imageUri, "image_uri");
        if (!ImageReference.isValid(imageUri)) {
            throw MalformedEventException.invalid("image_uri", ImageReference.problem(imageUri));
        }
        Require.present(trackSpec, "track_spec");
        Require.present(trackSpec.leaderboardVersion(), "track_spec.leaderboard_version");
        if (trackSpec.leaderboardVersion().takesScenarios()) {
            Require.text(trackSpec.scenariosFile(), "track_spec.scenarios_file");
        }
        Require.present(requestedAt, "requested_at");
    }

    public static LaunchRequest of(SubmissionIdentity submission, int run, String imageUri, boolean resume,
            TrackSpec track, Instant requestedAt) {
        return new LaunchRequest(EventCodec.VERSION, submission, run, imageUri, resume, track, requestedAt);
    }
}
