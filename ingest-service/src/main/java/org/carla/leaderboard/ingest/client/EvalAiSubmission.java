package org.carla.leaderboard.ingest.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The fields of EvalAI's submission ({@code GET /api/jobs/submission/{pk}}) the intake uses; EvalAI sends many more.
 *
 * @param id                  the submission pk
 * @param participantTeam     the team's pk
 * @param participantTeamName the team's name, as the participant typed it (anything at all)
 * @param status              EvalAI's status ({@code submitted}, {@code cancelled}, {@code resuming}, ...)
 * @param challengePhase      the phase pk
 * @param submittedAt         ISO-8601 time EvalAI took the submission, when given
 * @param rerunResumedAt      ISO-8601 time of the host's last resume of it, when it was resumed: what makes one resume
 *                            different from a repeated delivery of the same one
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
public record EvalAiSubmission(
        @JsonProperty("id") Long id,
        @JsonProperty("participant_team") Long participantTeam,
        @JsonProperty("participant_team_name") String participantTeamName,
        @JsonProperty("status") String status,
        @JsonProperty("challenge_phase") Long challengePhase,
        @JsonProperty("submitted_at") String submittedAt,
        @JsonProperty("rerun_resumed_at") String rerunResumedAt) {
}
