package org.carla.leaderboard.podruntime.logcopy;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.event.MalformedEventException;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The logcopy role's settings, from the environment the Job gives it (the Job ↔ pod-runtime contract): where the logs
 * volume is, the bucket and prefix to mirror it to, the queue to report to, the worker pairs and expected routes, the
 * period, and the submission's identity for the progress events.
 */
public record LogcopySettings(Path logsDir, Path statusDir, String bucket, String submissionId, int workerPairs,
        OptionalInt expectedRoutes, Duration period, String queueUrl, SubmissionIdentity identity,
        long multipartThreshold, int partSize) {

    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(10);
    /** S3 parts other than the last must be 5 MiB at least. */
    static final int MIN_PART_SIZE = 5 * 1024 * 1024;

    public LogcopySettings {
        if (workerPairs < 1) {
            throw new IllegalArgumentException("WORKER_PAIRS must be at least 1, was " + workerPairs);
        }
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("LOGS_PERIOD must be positive, was " + period);
        }
        if (partSize < MIN_PART_SIZE || multipartThreshold < partSize) {
            throw new IllegalArgumentException("multipart: parts of at least 5 MiB and a threshold of at least one part");
        }
    }

    /** @throws IllegalArgumentException naming the variable at fault */
    public static LogcopySettings fromEnv(Map<String, String> env) {
        Path logs = Path.of(env.getOrDefault("LOGS_DIR", "/tmp/logs"));
        Path status = Path.of(env.getOrDefault("STATUS_DIR", logs.resolve(StatusFiles.DIRECTORY).toString()));
        SubmissionIdentity identity;
        try {
            identity = new SubmissionIdentity(number(env, "SUBMISSION_PK"), number(env, "CHALLENGE_PK"),
                    number(env, "PHASE_PK"), number(env, "TEAM_ID"), required(env, "TEAM_NAME"),
                    required(env, "LEADERBOARD"), required(env, "TRACK"));
        } catch (MalformedEventException e) {
            throw new IllegalArgumentException("submission identity: " + e.getMessage(), e);
        }
        String submissionId = env.getOrDefault("SUBMISSION_ID", identity.submissionId()).strip();
        if (!submissionId.matches("[A-Za-z0-9_-]{1,128}")) {
            throw new IllegalArgumentException("SUBMISSION_ID must be a plain identifier, was '" + submissionId + "'");
        }
        String expected = env.get("EXPECTED_ROUTES");
        OptionalInt expectedRoutes = expected == null || expected.isBlank() ? OptionalInt.empty()
                : OptionalInt.of(Math.toIntExact(positive(expected, "EXPECTED_ROUTES")));
        long threshold = env.containsKey("LOGS_MULTIPART_THRESHOLD")
                ? positive(env.get("LOGS_MULTIPART_THRESHOLD"), "LOGS_MULTIPART_THRESHOLD") : 16L * 1024 * 1024;
        int part = env.containsKey("LOGS_PART_SIZE")
                ? Math.toIntExact(positive(env.get("LOGS_PART_SIZE"), "LOGS_PART_SIZE")) : 8 * 1024 * 1024;
        return new LogcopySettings(logs, status, required(env, "S3_BUCKET"), submissionId,
                Math.toIntExact(positive(required(env, "WORKER_PAIRS"), "WORKER_PAIRS")), expectedRoutes,
                duration(env.get("LOGS_PERIOD"), "LOGS_PERIOD", DEFAULT_PERIOD),
                required(env, "SUBMISSION_EVENTS_QUEUE_URL"), identity, threshold, part);
    }

    /** The S3 prefix of the submission: {@code <submission_id>/}. */
    public String prefix() {
        return submissionId + "/";
    }

    /** Seconds ({@code 10}, {@code 0.5}) or ISO-8601 ({@code PT10S}). */
    static Duration duration(String value, String name, Duration fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            if (value.strip().toUpperCase().startsWith("P")) {
                return Duration.parse(value.strip());
            }
            return Duration.ofNanos(new BigDecimal(value.strip()).movePointRight(9).longValueExact());
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be seconds or an ISO-8601 duration, was '" + value + "'");
        }
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value.strip();
    }

    private static long number(Map<String, String> env, String name) {
        try {
            return Long.parseLong(required(env, name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, was '" + env.get(name) + "'");
        }
    }

    private static long positive(String value, String name) {
        try {
            long number = Long.parseLong(value.strip());
            if (number < 1) {
                throw new NumberFormatException();
            }
            return number;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive integer, was '" + value + "'");
        }
    }
}
