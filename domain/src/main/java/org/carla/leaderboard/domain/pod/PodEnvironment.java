package org.carla.leaderboard.domain.pod;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The environment of a submission pod's containers: the contract between job-launcher, which writes it into the Job
 * ({@code SubmissionJob}), and pod-runtime, which reads it (and the local Job runner, which maps its paths). Every name
 * is here once, with the one way each kind of value is read. Nothing a participant chose is in it: no team name, no
 * image, only numbers, ids the system made, and paths.
 */
public final class PodEnvironment {

    // The submission and its run (every container that needs them).
    /** The submission pk as text: the record's {@code submission_id} and the S3 prefix. */
    public static final String SUBMISSION_ID = "SUBMISSION_ID";
    public static final String TEAM_ID = "TEAM_ID";
    public static final String LEADERBOARD = "LEADERBOARD";
    /** The run of the submission this pod is (1, 2, ...). */
    public static final String RUN = "RUN";
    /** Whether this run resumes an earlier one: init downloads its files, the agents resume their checkpoints. */
    public static final String RESUME = "RESUME";
    public static final String WORKER_PAIRS = "WORKER_PAIRS";

    // The logs volume.
    public static final String LOGS_DIR = "LOGS_DIR";
    public static final String STATUS_DIR = "STATUS_DIR";
    /** Where the Job mounts the logs volume, when {@link #LOGS_DIR} does not say otherwise. */
    public static final String DEFAULT_LOGS_DIR = "/tmp/logs";

    // A worker pair (simulator-i, agent-i).
    /** The pair's number, from 1. */
    public static final String WORKER_ID = "WORKER_ID";
    public static final String CARLA_PORT = "CARLA_PORT";
    public static final String CARLA_HOST = "CARLA_HOST";
    public static final String CARLA_RENDERER = "CARLA_RENDERER";
    public static final String CARLA_ROOT = "CARLA_ROOT";
    public static final String CARLA_SERVER_COMMAND = "CARLA_SERVER_COMMAND";
    public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
    /** How long a role waits for its partner (CARLA accepting, the partner's status file). */
    public static final String PARTNER_WAIT = "PARTNER_WAIT";
    /** How long the evaluator may write nothing before it is stopped. */
    public static final String MAX_IDLE = "MAX_IDLE";
    /** SIGTERM → SIGKILL of the supervised process. */
    public static final String STOP_GRACE = "STOP_GRACE";

    // The agent: the Leaderboard evaluator's inputs.
    public static final String CHALLENGE_TRACK_CODENAME = "CHALLENGE_TRACK_CODENAME";
    /** The Leaderboard the evaluator is ({@code 1.0}, {@code 2.0}: {@code track.LeaderboardVersion}): its arguments. */
    public static final String LEADERBOARD_VERSION = "LEADERBOARD_VERSION";
    /** The routes file; the agent passes its pair's share of it, by id ({@code route.StaticSplit}). */
    public static final String ROUTES = "ROUTES";
    /** Leaderboard 1.0: the scenarios file ({@code --scenarios}). */
    public static final String SCENARIOS = "SCENARIOS";
    public static final String REPETITIONS = "REPETITIONS";
    public static final String LEADERBOARD_ROOT = "LEADERBOARD_ROOT";
    /**
     * Where the agent's container mounts the Leaderboard volume ({@link #LEADERBOARD_ROOT}): a track's routes and
     * scenarios files are paths under it.
     */
    public static final String LEADERBOARD_DIR = "/workspace/leaderboard";
    public static final String SCENARIO_RUNNER_ROOT = "SCENARIO_RUNNER_ROOT";
    public static final String CARLA_PYTHON_API_ROOT = "CARLA_PYTHON_API_ROOT";
    public static final String EVALUATOR_COMMAND = "EVALUATOR_COMMAND";
    /** Set by the participant's image: the agent's module and its configuration. */
    public static final String TEAM_AGENT = "TEAM_AGENT";
    public static final String TEAM_CONFIG = "TEAM_CONFIG";
    public static final String RECORD_PATH = "RECORD_PATH";

    // init (private-contents): where the Leaderboard image's folders are copied to.
    public static final String LEADERBOARD_VOLUME = "LEADERBOARD_VOLUME";
    public static final String SCENARIO_RUNNER_VOLUME = "SCENARIO_RUNNER_VOLUME";
    public static final String CARLA_PYTHON_API_VOLUME = "CARLA_PYTHON_API_VOLUME";
    /**
     * carla-version and init: the versions volume, which only init containers mount; carla-version leaves the CARLA
     * server's version there ({@link #CARLA_SERVER_VERSION_FILE}) for init, which records it with the others.
     */
    public static final String VERSIONS_DIR = "VERSIONS_DIR";
    public static final String CARLA_SERVER_VERSION_FILE = "carla-server";

    // init and logcopy: where the submission's files go.
    public static final String S3_BUCKET = "S3_BUCKET";
    public static final String AWS_REGION = "AWS_REGION";

    // logcopy.
    /** The queue logcopy reports progress to ({@code progress-reports}). */
    public static final String PROGRESS_QUEUE_URL = "PROGRESS_QUEUE_URL";
    /** Route records a complete run holds (routes × repetitions): logcopy's merge, the agent's check of the routes file. */
    public static final String EXPECTED_ROUTES = "EXPECTED_ROUTES";
    /** How often logcopy merges, uploads and looks for a cancel. */
    public static final String LOGS_PERIOD = "LOGS_PERIOD";
    /** How long logcopy stays silent when nothing changed before it sends a heartbeat. */
    public static final String HEARTBEAT_PERIOD = "HEARTBEAT_PERIOD";
    /**
     * The restarts of the pod's pair containers (each container's starts but its first, summed) at which logcopy ends
     * the pod with {@link #RESTART_LIMIT_EXIT_CODE}: the crash budget the kubelet's restart counts were under
     * {@code restartPolicy: OnFailure}.
     */
    public static final String RESTART_LIMIT = "RESTART_LIMIT";
    /** logcopy's exit code once the pod's restarts reached {@link #RESTART_LIMIT}: the Job's podFailurePolicy fails the Job on it. */
    public static final int RESTART_LIMIT_EXIT_CODE = 3;
    public static final String LOGS_MULTIPART_THRESHOLD = "LOGS_MULTIPART_THRESHOLD";
    public static final String LOGS_PART_SIZE = "LOGS_PART_SIZE";
    /**
     * The shortest time between two uploads of one changed file of the logs volume (a log's lag in S3 against its
     * cost in requests); logcopy's default is 30 s, or {@link #LOGS_PERIOD} when longer.
     */
    public static final String LOGS_UPLOAD_INTERVAL = "LOGS_UPLOAD_INTERVAL";

    // The route ledger (init makes it; logcopy claims from it).
    /** The route ledger table (domain's {@code RouteLedgerTable}); unset: the run has no ledger. */
    public static final String LEDGER_TABLE = "LEDGER_TABLE";
    /** {@code dynamic} or {@code static} ({@code ledger.Schedule}). */
    public static final String SCHEDULE = "SCHEDULE";
    /** The run's pods (the Job's completions); {@link #WORKER_PAIRS} is per pod. */
    public static final String PODS = "PODS";
    /** The track's {@code allowed-resumes}: failed attempts a route may have before the run gives up on it. */
    public static final String ALLOWED_RESUMES = "ALLOWED_RESUMES";
    /** How long a claim holds without renewal (default: the ledger's {@code EntryChanges.DEFAULT_LEASE}). */
    public static final String ROUTE_LEASE = "ROUTE_LEASE";
    /** The pod's index in an Indexed Job (the Job controller sets it); 0 otherwise. */
    public static final String JOB_COMPLETION_INDEX = "JOB_COMPLETION_INDEX";
    /**
     * The container's host name: the pod's name, but an Indexed Job's pod has {@code <job>-<index>}, which its
     * replacement has too; {@link #POD_NAME} tells the two apart.
     */
    public static final String HOSTNAME = "HOSTNAME";
    /** The pod's name (the downward API's {@code metadata.name}): a replacement pod of the same index has another. */
    public static final String POD_NAME = "POD_NAME";
    /** The node the pod runs on (the downward API's {@code spec.nodeName}); recorded with each attempt. */
    public static final String NODE_NAME = "NODE_NAME";

    private PodEnvironment() {
    }

    /** The value, trimmed; empty when unset or blank. */
    public static Optional<String> value(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
    }

    /** @throws IllegalArgumentException naming the variable when it is unset or blank */
    public static String required(Map<String, String> env, String name) {
        return value(env, name).orElseThrow(() -> new IllegalArgumentException(name + " is not set"));
    }

    /** A whole number; {@link IllegalArgumentException} naming the variable when it is not one. */
    public static Optional<Integer> integer(Map<String, String> env, String name) {
        return value(env, name).map(v -> {
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'");
            }
        });
    }

    /** A whole number of at least 1. */
    public static Optional<Integer> positive(Map<String, String> env, String name) {
        return integer(env, name).map(v -> {
            if (v < 1) {
                throw new IllegalArgumentException(name + " must be 1 or more, was " + v);
            }
            return v;
        });
    }

    /** A positive 64-bit number (an id). */
    public static Optional<Long> positiveLong(Map<String, String> env, String name) {
        return value(env, name).map(v -> {
            try {
                long number = Long.parseLong(v);
                if (number >= 1) {
                    return number;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new IllegalArgumentException(name + " must be a positive integer, was '" + v + "'");
        });
    }

    /**
     * A duration, as ISO-8601 ({@code PT10M}) or a number of seconds ({@code 600}, {@code 0.5}); never negative.
     */
    public static Optional<Duration> duration(Map<String, String> env, String name) {
        return value(env, name).map(v -> parseDuration(name, v));
    }

    /** The one reading of "seconds or ISO-8601" ({@code LOGS_PERIOD=10}, {@code PARTNER_WAIT=PT10M}). */
    public static Duration parseDuration(String name, String text) {
        String v = text.trim();
        Duration duration;
        try {
            duration = v.toUpperCase(Locale.ROOT).startsWith("P") ? Duration.parse(v)
                    : Duration.ofNanos(new BigDecimal(v).movePointRight(9).longValueExact());
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be ISO-8601 (PT10M) or seconds (600), was '" + text + "'");
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was '" + text + "'");
        }
        return duration;
    }

    /** A flag as the seeds read {@code RESUME} (set and non-empty), except that {@code false}, {@code 0}, {@code no} mean no. */
    public static boolean flag(Map<String, String> env, String name) {
        return value(env, name).filter(v -> !v.equalsIgnoreCase("false") && !v.equals("0") && !v.equalsIgnoreCase("no"))
                .isPresent();
    }

    /** The logs volume: {@link #LOGS_DIR}, else {@link #DEFAULT_LOGS_DIR}. */
    public static Path logsDir(Map<String, String> env) {
        return Path.of(value(env, LOGS_DIR).orElse(DEFAULT_LOGS_DIR));
    }

    /** The status files: {@link #STATUS_DIR}, else the logs volume's {@code containers-status}. */
    public static Path statusDir(Map<String, String> env) {
        return value(env, STATUS_DIR).map(Path::of).orElse(logsDir(env).resolve(StatusFiles.DIRECTORY));
    }

    /** How a duration is written into the environment: whole seconds. */
    public static String seconds(Duration duration) {
        return Long.toString(duration.toSeconds());
    }
}
