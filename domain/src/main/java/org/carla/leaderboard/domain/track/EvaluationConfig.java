package org.carla.leaderboard.domain.track;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The leaderboards and the EvalAI phases that map onto their tracks. Shared by every service through this module;
 * the public leaderboards' defaults ship in {@code META-INF/microprofile-config.properties} and a deployment overrides
 * any of them in its own configuration. Read it through {@link TrackCatalog}.
 */
@ConfigMapping(prefix = "evaluation")
public interface EvaluationConfig {

    /** Leaderboard id (e.g. {@code leaderboard-20}) → where its records and files live and what it runs. */
    Map<String, Leaderboard> leaderboards();

    /** EvalAI phase pk → the track it evaluates. */
    Map<String, Phase> phases();

    /** The DynamoDB table of passed qualifiers: partition key {@code team_id}, sort key {@code track_codename}. */
    @WithDefault("leaderboard-qualifiers")
    String qualifierTable();

    /** The route ledger's DynamoDB table (domain's {@code ledger.RouteLedgerTable}), for phases with a schedule. */
    @WithDefault("route-ledger")
    String routeLedgerTable();

    /** The image that holds the pod-runtime executable. */
    String podRuntimeImage();

    /**
     * Node instance type → the GPUs it has ({@code evaluation.instance-gpus."g5.12xlarge"=4}): what a run's GPU-hours
     * are counted in ({@code record.GpuUsage}). Every phase's instance type must be here.
     */
    Map<String, Integer> instanceGpus();

    interface Leaderboard {
        /** S3 bucket of the leaderboard's logs and results, one prefix per submission. */
        String bucket();

        /** DynamoDB table of the leaderboard's submissions: partition key {@code team_id}, sort key {@code submission_id}. */
        String submissionsTable();

        /** The CARLA server image. */
        String simulatorImage();

        /** The image with the Leaderboard, ScenarioRunner, CARLA PythonAPI and the private routes. */
        String leaderboardImage();

        /** CARLA's renderer flag: {@code opengl} for Leaderboard 1.0, {@code vulkan} for 2.0. */
        String renderer();

        /** The Leaderboard its image runs, {@code 1.0} or {@code 2.0} ({@link LeaderboardVersion}). */
        String version();
    }

    interface Phase {
        /** The leaderboard id; must be a key of {@link #leaderboards()}. */
        String leaderboard();

        /** The track's codename as the Leaderboard evaluator takes it ({@code SENSORS}, {@code MAP}, ...). */
        String track();

        /** The routes XML, a path inside the Leaderboard volume. */
        String routesFile();

        /**
         * The scenarios file of a Leaderboard 1.0 track ({@code --scenarios}), a path inside the Leaderboard volume;
         * required there, refused for a 2.0 track (its routes file holds the scenarios).
         */
        Optional<String> scenariosFile();

        /** Number of routes in the routes file. */
        int routes();

        @WithDefault("1")
        int repetitions();

        /** Simulator/agent pairs per Job, one per GPU. */
        @WithDefault("4")
        int workerPairs();

        /**
         * The run's pods, each of {@code worker-pairs} pairs on a node of {@code instance-type} (an Indexed Job's
         * completions): 1, or several, which need a {@code schedule}: they claim from one route ledger.
         */
        @WithDefault("1")
        int pods();

        @WithDefault("g5.12xlarge")
        String instanceType();

        /** The Job's active deadline. */
        @WithDefault("PT48H")
        Duration deadline();

        /** How often a crashed pair may be restarted and resume; the Job's backoffLimit is twice this, plus one. */
        @WithDefault("4")
        int allowedResumes();

        /**
         * How the run's pairs get their routes: unset, each pair drives its static share (the seeds' layout, no
         * ledger); {@code dynamic}, they claim the longest expected route left from the run's route ledger;
         * {@code static}, they claim their static share from it ({@code ledger.Schedule}).
         */
        Optional<String> schedule();

        /** Withhold container logs from a failed submission's stderr. */
        @WithDefault("false")
        boolean hideLogs();

        /** Only teams in the qualifier table for this track may submit. */
        @WithDefault("false")
        boolean requiresQualification();

        /** For a qualifier track: the track codename a pass opens. */
        Optional<String> qualifiesFor();

        /** For a qualifier track: metric (snake case, as stored) → the value it must exceed. */
        Map<String, Double> thresholds();
    }
}
