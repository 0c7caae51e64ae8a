package org.carla.leaderboard.localstack.evalai;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.carla.leaderboard.domain.evalai.EvalAiThrottle;

/**
 * How the EvalAI stand-in runs: its port on 127.0.0.1 (0 = a free one), the token of the challenge's host, the tokens
 * of other EvalAI users (valid, hosts of nothing), the one challenge it hosts and that challenge's phases with their
 * leaderboard schemas, where it publishes submission messages, whether the messages carry the pks as strings (EvalAI
 * has sent both forms), and its throttle of each user: {@code throttleRequests} per {@code throttlePeriod} (EvalAI's
 * 60 a minute, {@link EvalAiThrottle}; a compressed local run shortens the period) on {@code clock}.
 */
public record EvalAiOptions(int port, String token, Set<String> users, long challengePk,
        Map<Long, LeaderboardSchema> phases, SubmissionPublisher publisher, boolean pksAsStrings, int throttleRequests,
        Duration throttlePeriod, Clock clock) {

    /** The CARLA phases of the domain's default configuration (Leaderboard 1.0 and 2.0 tracks). */
    public static final long[] CARLA_PHASES = {1187, 1188, 2075, 2076, 2077, 2078};

    public EvalAiOptions {
        Objects.requireNonNull(token, "token");
        if (token.isBlank()) {
            throw new IllegalArgumentException("the host token must not be blank");
        }
        Objects.requireNonNull(publisher, "publisher");
        phases = Map.copyOf(phases);
        users = Set.copyOf(users);
        if (users.contains(token)) {
            throw new IllegalArgumentException("a user's token must differ from the host's");
        }
        if (throttleRequests < 1 || throttlePeriod.isNegative() || throttlePeriod.isZero()) {
            throw new IllegalArgumentException("the throttle is a positive number of requests per positive period");
        }
        Objects.requireNonNull(clock, "clock");
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
        private final Set<String> users = new LinkedHashSet<>();
        private int throttleRequests = EvalAiThrottle.REQUESTS;
        private Duration throttlePeriod = EvalAiThrottle.PERIOD;
        private Clock clock = Clock.systemUTC();

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

        /** Another EvalAI user's token: valid, a host of no challenge (EvalAI answers it as it answers a non-host). */
        public Builder user(String userToken) {
            users.add(Objects.requireNonNull(userToken, "token"));
            return this;
        }

        /** How many requests each user may make per {@code period} (EvalAI: 60 a minute). */
        public Builder throttle(int requests, Duration period) {
            throttleRequests = requests;
            throttlePeriod = period;
            return this;
        }

        /** The clock the throttle counts on (the system's). */
        public Builder clock(Clock value) {
            clock = value;
            return this;
        }

        public EvalAiOptions build() {
            Map<Long, LeaderboardSchema> configured = new LinkedHashMap<>(phases);
            if (configured.isEmpty()) {
                for (long phase : CARLA_PHASES) {
                    configured.put(phase, LeaderboardSchema.carlaLeaderboard());
                }
            }
            return new EvalAiOptions(port, token, users, challengePk, configured, publisher, pksAsStrings,
                    throttleRequests, throttlePeriod, clock);
        }
    }
}
