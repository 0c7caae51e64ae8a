package org.carla.leaderboard.console.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** What the console reads of EvalAI's submission: whose, of which phase, and its status. */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
public record EvalAiSubmission(@JsonProperty("id") Long id, @JsonProperty("participant_team") Long participantTeam,
        @JsonProperty("challenge_phase") Long challengePhase, @JsonProperty("status") String status) {
}
