package org.carla.leaderboard.podruntime.logcopy;

import static org.carla.leaderboard.domain.pod.PodEnvironment.positive;
import static org.carla.leaderboard.domain.pod.PodEnvironment.positiveLong;
import static org.carla.leaderboard.domain.pod.PodEnvironment.required;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

import org.carla.leaderboard.domain.event.MalformedEventException;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The logcopy role's settings, from the environment the Job gives it ({@link PodEnvironment}): where the logs volume
 * is, the bucket to mirror it to, the queue to report progress to, the worker pairs and expected routes, the period and
 * the heartbeat, and which submission and run this pod is. Nothing a participant chose is among them.
 *
 * @param restartLimit   the pair containers' restarts (each one's starts but its first, summed: {@code StatusFiles
 *                       .restarts}) at which logcopy ends the pod with {@code RESTART_LIMIT_EXIT_CODE}:
 *                       {@code RESTART_LIMIT}, required (the Job's crash budget, which only the Job knows)
 * @param uploadInterval the shortest time between two uploads of one changed file of the volume (logcopy's own files
 *                       go every period): {@code LOGS_UPLOAD_INTERVAL}, else {@link #DEFAULT_UPLOAD_INTERVAL} or the
 *                       period when longer
 * @param partSize       the size of a multipart upload's parts and the largest single put (at least 5 MiB)
 * @param podIndex       the pod's completion index ({@code JOB_COMPLETION_INDEX}, 0 when unset)
 * @param pods           the run's pods ({@code PODS}, 1 when unset): in a run of several, each pod's volume is mirrored
 *                       under its own folder ({@code SubmissionLayout.podDir})
 */
public record LogcopySettings(Path logsDir, Path statusDir, String bucket, SubmissionRef submission, int run,
        int workerPairs, int restartLimit, OptionalInt expectedRoutes, Duration period, Duration heartbeat,
        String queueUrl, Duration uploadInterval, int partSize, int podIndex, int pods) {

    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(10);
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofMinutes(5);
    /** With a pass's own time, a log's newest lines reach S3 within a minute. */
    public static final Duration DEFAULT_UPLOAD_INTERVAL = Duration.ofSeconds(30);
    /** S3 parts other than the last must be 5 MiB at least. */
    static final int MIN_PART_SIZE = 5 * 1024 * 1024;

    public LogcopySettings {
        if (run < 1) {
            throw new IllegalArgumentException("RUN must be 1 or more, was " + run);
        }
        if (workerPairs < 1) {
            throw new IllegalArgumentException("WORKER_PAIRS must be at least 1, was " + workerPairs);
        }
        if (restartLimit < 1) {
            throw new IllegalArgumentException(PodEnvironment.RESTART_LIMIT + " must be 1 or more, was " + restartLimit);
        }
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("LOGS_PERIOD must be positive, was " + period);
        }
        if (heartbeat.compareTo(period) < 0) {
            throw new IllegalArgumentException("HEARTBEAT_PERIOD must be at least LOGS_PERIOD, was " + heartbeat);
        }
        if (uploadInterval.isNegative()) {
            throw new IllegalArgumentException("the upload interval must not be negative, was " + uploadInterval);
        }
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("LOGS_PART_SIZE must be at least 5 MiB (S3's part minimum), was "
                    + partSize);
        }
        SubmissionLayout.podDir(podIndex, pods); // a pod outside its run is refused here, naming both
        if (!statusDir.toAbsolutePath().normalize()
                .equals(logsDir.toAbsolutePath().normalize().resolve(StatusFiles.DIRECTORY))) {
            // logcopy writes and uploads its status files as containers-status/... of the logs volume.
            throw new IllegalArgumentException("STATUS_DIR must be $LOGS_DIR/" + StatusFiles.DIRECTORY + ", was "
                    + statusDir);
        }
    }

    /** @throws IllegalArgumentException naming the variable at fault */
    public static LogcopySettings fromEnv(Map<String, String> env) {
        Path logs = PodEnvironment.logsDir(env);
        Path status = PodEnvironment.statusDir(env);
        String submissionId = required(env, PodEnvironment.SUBMISSION_ID);
        long submissionPk;
        try {
            submissionPk = Long.parseLong(submissionId);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PodEnvironment.SUBMISSION_ID + " must be a submission pk, was '"
                    + submissionId + "'");
        }
        SubmissionRef submission;
        try {
            submission = new SubmissionRef(submissionPk, positiveLong(env, PodEnvironment.TEAM_ID).orElse(0L),
                    required(env, PodEnvironment.LEADERBOARD));
        } catch (MalformedEventException e) {
            throw new IllegalArgumentException("submission: " + e.getMessage(), e);
        }
        Duration period = PodEnvironment.duration(env, PodEnvironment.LOGS_PERIOD).orElse(DEFAULT_PERIOD);
        return new LogcopySettings(logs, status, required(env, PodEnvironment.S3_BUCKET), submission,
                positive(env, PodEnvironment.RUN).orElseThrow(() -> new IllegalArgumentException("RUN is not set")),
                positive(env, PodEnvironment.WORKER_PAIRS)
                        .orElseThrow(() -> new IllegalArgumentException("WORKER_PAIRS is not set")),
                positive(env, PodEnvironment.RESTART_LIMIT).orElseThrow(() -> new IllegalArgumentException(
                        PodEnvironment.RESTART_LIMIT + " is not set (the pair containers' restarts that end the pod)")),
                positive(env, PodEnvironment.EXPECTED_ROUTES).map(OptionalInt::of).orElse(OptionalInt.empty()),
                period,
                PodEnvironment.duration(env, PodEnvironment.HEARTBEAT_PERIOD).orElse(
                        DEFAULT_HEARTBEAT.compareTo(period) < 0 ? period : DEFAULT_HEARTBEAT),
                required(env, PodEnvironment.PROGRESS_QUEUE_URL),
                PodEnvironment.duration(env, PodEnvironment.LOGS_UPLOAD_INTERVAL)
                        .orElse(DEFAULT_UPLOAD_INTERVAL.compareTo(period) < 0 ? period : DEFAULT_UPLOAD_INTERVAL),
                positive(env, PodEnvironment.LOGS_PART_SIZE).orElse(8 * 1024 * 1024),
                PodEnvironment.integer(env, PodEnvironment.JOB_COMPLETION_INDEX).orElse(0),
                positive(env, PodEnvironment.PODS).orElse(1));
    }

    public String submissionId() {
        return submission.submissionId();
    }

    /**
     * The S3 prefix the pod's logs volume is mirrored under: {@code <submission_id>/}, or
     * {@code <submission_id>/pod-<index>/} in a run of several pods.
     */
    public String prefix() {
        return SubmissionLayout.podPrefix(submissionId(), podIndex, pods);
    }

    /** The submission's own prefix, {@code <submission_id>/}: where the relay's control objects are. */
    public String submissionPrefix() {
        return SubmissionLayout.prefix(submissionId());
    }
}
