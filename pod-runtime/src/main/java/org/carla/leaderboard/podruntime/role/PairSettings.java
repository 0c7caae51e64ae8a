package org.carla.leaderboard.podruntime.role;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * The environment of a worker-pair role, read in one place. The names are the Job's (see the README); every folder
 * has the container path as default and a variable to move it, because the local Job runner maps those paths.
 */
public record PairSettings(String submissionId, int workerPairs, int pair, int carlaPort, String carlaHost,
        Duration partnerWait, Duration maxIdle, Duration stopGrace, Path logsDir, Path statusDir) {

    public static final Duration DEFAULT_PARTNER_WAIT = Duration.ofMinutes(10);
    public static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(800);
    public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(10);

    public static PairSettings from(Map<String, String> env) {
        Path logs = Path.of(value(env, "LOGS_DIR").orElse("/tmp/logs"));
        return new PairSettings(
                value(env, "SUBMISSION_ID").orElse("local"),
                integer(env, "WORKER_PAIRS").orElse(1),
                pair(env),
                integer(env, "CARLA_PORT").orElse(2000),
                value(env, "CARLA_HOST").orElse("127.0.0.1"),
                duration(env, "PARTNER_WAIT").orElse(DEFAULT_PARTNER_WAIT),
                duration(env, "MAX_IDLE").orElse(DEFAULT_MAX_IDLE),
                duration(env, "STOP_GRACE").orElse(DEFAULT_STOP_GRACE),
                logs,
                value(env, "STATUS_DIR").map(Path::of).orElse(logs.resolve("containers-status")));
    }

    /** {@code WORKER_ID}, else the seeds' rule: the GPU in {@code NVIDIA_VISIBLE_DEVICES} plus one. */
    static int pair(Map<String, String> env) {
        Optional<Integer> workerId = integer(env, "WORKER_ID");
        if (workerId.isPresent()) {
            return positive("WORKER_ID", workerId.get());
        }
        return integer(env, "NVIDIA_VISIBLE_DEVICES").map(gpu -> gpu + 1).orElseThrow(() ->
                new IllegalArgumentException("WORKER_ID is not set, and NVIDIA_VISIBLE_DEVICES is not one GPU number"));
    }

    public static Optional<String> value(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
    }

    public static Optional<Integer> integer(Map<String, String> env, String name) {
        return value(env, name).map(v -> {
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'");
            }
        });
    }

    /** ISO-8601 ({@code PT10M}) or a number of seconds ({@code 600}, {@code 0.5}). */
    static Optional<Duration> duration(Map<String, String> env, String name) {
        return value(env, name).map(v -> {
            try {
                if (v.startsWith("P") || v.startsWith("p")) {
                    return Duration.parse(v);
                }
                return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
            } catch (DateTimeParseException | NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be ISO-8601 (PT10M) or seconds (600), was '" + v + "'");
            }
        }).map(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative");
            }
            return d;
        });
    }

    /** RESUME as the seeds read it (set and non-empty), except that an explicit false or 0 means no. */
    public static boolean flag(Map<String, String> env, String name) {
        return value(env, name).filter(v -> !v.equalsIgnoreCase("false") && !v.equals("0") && !v.equalsIgnoreCase("no"))
                .isPresent();
    }

    private static int positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be 1 or more, was " + value);
        }
        return value;
    }
}
