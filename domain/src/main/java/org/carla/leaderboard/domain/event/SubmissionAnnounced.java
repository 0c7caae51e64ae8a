package org.carla.leaderboard.domain.event;

import java.util.Optional;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The message EvalAI puts on the challenge's queue for a new (or resumed) submission, as EvalAI sends it:
 * {@code challenge_pk}, {@code phase_pk}, {@code submission_pk} (numbers or numeric strings),
 * {@code submitted_image_uri}, {@code is_static_dataset_code_upload_submission}. It has no version field: the format
 * is EvalAI's. Read it with {@link EventCodec#parseAnnouncement(String)}.
 */
@RegisterForReflection
public record SubmissionAnnounced(long challengePk, long phasePk, long submissionPk, String submittedImageUri,
        boolean staticDatasetCodeUpload) {

    public SubmissionAnnounced {
        Require.positive(challengePk, "challenge_pk");
        Require.positive(phasePk, "phase_pk");
        Require.positive(submissionPk, "submission_pk");
    }

    /** The image to run; absent (or blank) in a message that cannot be launched. */
    public Optional<String> imageUri() {
        return Optional.ofNullable(submittedImageUri).filter(uri -> !uri.isBlank());
    }
}
