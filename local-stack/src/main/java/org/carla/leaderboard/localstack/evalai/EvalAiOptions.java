package org.carla.leaderboard.localstack.evalai;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How the EvalAI stand-in runs: its port on 127.0.0.1 (0 = a free one), the host token its API requires, the one
 * challenge it hosts and that challenge's phases with their leaderboard schemas, where it publishes submission
 * messages, and whether the messages carry the pks as strings (EvalAI has sent both forms).
 */
public record EvalAiOptions(int port, String token, long challengePk, Map<Long, LeaderboardSchema> phases,
        SubmissionPublisher publisher, boolean pksAsStrings) {

    /** The CARLA phases of the domain's default configuration (Leaderboard 1.0 and 2.0 tracks). */
    public static final long[] CARLA_PHASES = {1187, 1188, 2075, 2076, 2077, 2078};

    public EvalAiOptions {
        Objects.requireNonNull(token, "token");
        if (token.isBlank()) {
            throw new IllegalArgumentException("the host token must not be blank");
        }
        Objects.requireNonNull(publisher, "publisher");
        phases = Map.copyOf(phases);
    }

    public static Builder builder(String token, SubmissionPublisher publisher) {
        return new Builder(token, publisher);
    }

    public static final class Builder {
        private final String token;
        private final SubmissionPublisher publisher;
        private int port;
        private long challengePk = 1;
        private final Map<Long, LeaderboardSchema> phases = new LinkedHashMap<>();
        private boolean pksAsStrings;

        private Builder(String token, SubmissionPublisher publisher) {
            this.token = token;
            this.publisher = publisher;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder challengePk(long value) {
            challengePk = value;
            return this;
        }

        /** Adds a phase; without any, the {@link #CARLA_PHASES} with the CARLA leaderboard schema. */
        public Builder phase(long phasePk, LeaderboardSchema schema) {
            phases.put(phasePk, schema);
            return this;
        }

        public Builder pksAsStrings(boolean value) {
            pksAsStrings = value;
            return this;
        }

        public EvalAiOptions build() {
            Map<Long, LeaderboardSchema> configured = new LinkedHashMap<>(phases);
            if (configured.isEmpty()) {
                for (long phase : CARLA_PHASES) {
                    configured.put(phase, LeaderboardSchema.carlaLeaderboard());
                }
            }
            return new EvalAiOptions(port, token, challengePk, configured, publisher, pksAsStrings);
        }
    }
}
