package org.carla.leaderboard.podruntime.role;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CHALLENGE_TRACK_CODENAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.EXPECTED_ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_VERSION;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RECORD_PATH;
import static org.carla.leaderboard.domain.pod.PodEnvironment.REPETITIONS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIOS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.TEAM_AGENT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.TEAM_CONFIG;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_PAIRS;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.route.RoutesFile;
import org.carla.leaderboard.domain.route.StaticSplit;
import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * What the agent's evaluator is given, from its environment and the routes file: the Leaderboard version (which
 * arguments it takes), the agent, the track, and this pair's share of the routes, by id ({@link StaticSplit}: pair
 * {@code WORKER_ID} of {@code WORKER_PAIRS}). The routes file is the Leaderboard image's, in the Leaderboard volume;
 * when the Job says how many route records the run expects ({@code EXPECTED_ROUTES}), the file must hold that many
 * routes × repetitions, or every pair would drive routes the results cannot count.
 *
 * @param scenarios Leaderboard 1.0's scenarios file (required there), else empty
 * @param share     the routes this pair drives and the {@code --routes-subset} that selects them
 * @param record    CARLA's recording path, empty for none
 */
public record EvaluatorInputs(LeaderboardVersion version, String agent, String agentConfig, String track,
        String routes, Optional<String> scenarios, StaticSplit.Share share, int repetitions, String record) {

    /** @throws IllegalArgumentException naming the variable or the routes file at fault */
    public static EvaluatorInputs from(Map<String, String> env, int pair) {
        return from(env, pair, PodEnvironment.positive(env, WORKER_PAIRS).orElse(1));
    }

    /**
     * For a run with a route ledger: the claims say which route each evaluator drives, so the share is the whole file.
     * @throws IllegalArgumentException naming the variable or the routes file at fault
     */
    public static EvaluatorInputs forClaims(Map<String, String> env) {
        return from(env, 1, 1);
    }

    private static EvaluatorInputs from(Map<String, String> env, int pair, int pairs) {
        LeaderboardVersion version = version(env);
        Optional<String> scenarios = PodEnvironment.value(env, SCENARIOS);
        if (version.takesScenarios() && scenarios.isEmpty()) {
            throw new IllegalArgumentException(SCENARIOS + " is not set: the Leaderboard " + version
                    + " evaluator requires --scenarios");
        }
        String routes = PodEnvironment.required(env, ROUTES);
        int repetitions = PodEnvironment.positive(env, REPETITIONS).orElse(1);
        RoutesFile file = routesFile(routes, repetitions, PodEnvironment.positive(env, EXPECTED_ROUTES));
        return new EvaluatorInputs(version, PodEnvironment.required(env, TEAM_AGENT),
                PodEnvironment.value(env, TEAM_CONFIG).orElse(""),
                PodEnvironment.value(env, CHALLENGE_TRACK_CODENAME).orElse("SENSORS"), routes,
                version.takesScenarios() ? scenarios : Optional.empty(),
                StaticSplit.share(file, pair, pairs), repetitions,
                PodEnvironment.value(env, RECORD_PATH).orElse(""));
    }

    private static LeaderboardVersion version(Map<String, String> env) {
        String text = PodEnvironment.required(env, LEADERBOARD_VERSION);
        try {
            return LeaderboardVersion.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(LEADERBOARD_VERSION + ": " + e.getMessage());
        }
    }

    private static RoutesFile routesFile(String routes, int repetitions, Optional<Integer> expected) {
        RoutesFile file;
        try {
            file = RoutesFile.read(Path.of(routes));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the routes file " + routes + " (" + ROUTES + "): "
                    + e.getClass().getSimpleName() + " " + e.getMessage());
        }
        if (expected.isPresent() && (long) file.size() * repetitions != expected.get()) {
            throw new IllegalArgumentException("the routes file " + routes + " holds " + file.size() + " routes × "
                    + repetitions + " repetitions, the run expects " + expected.get() + " route records ("
                    + EXPECTED_ROUTES + "): the track's routes do not match its routes file");
        }
        return file;
    }
}
