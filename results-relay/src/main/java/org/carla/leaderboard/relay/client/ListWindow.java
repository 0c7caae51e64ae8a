package org.carla.leaderboard.relay.client;

import java.time.Instant;
import java.util.Optional;

/**
 * The submission times one list of a challenge's submissions covers: EvalAI's {@code submitted_after} and
 * {@code submitted_before}, both strict; empty for no bound.
 */
public record ListWindow(Optional<Instant> after, Optional<Instant> before) {

    /** No bound: every submission of the challenge. */
    public static final ListWindow ALL = new ListWindow(Optional.empty(), Optional.empty());
}
