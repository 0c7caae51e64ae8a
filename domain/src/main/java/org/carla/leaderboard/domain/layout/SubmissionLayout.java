package org.carla.leaderboard.domain.layout;

import java.util.function.IntFunction;

import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * A submission's objects in its leaderboard's bucket: everything under {@code <submission_id>/}, the logs volume
 * mirrored at {@link LogsLayout}'s paths, plus the control objects under {@code control/}: the cancel results-relay
 * writes, the versions init read. Whoever reads an object on a submission's behalf builds its key here (or checks it
 * with {@link #isUnder}), never takes a key from a message.
 */
public final class SubmissionLayout {

    /** The folder of the control objects: the relay's, never a file of the logs volume. */
    public static final String CONTROL_DIR = "control";
    /** The object whose presence tells logcopy that the run is cancelled. */
    public static final String CANCEL_CONTROL = CONTROL_DIR + "/cancel";
    /** The most pods of one run (an Indexed Job's completions, each a GPU node). */
    public static final int MAX_PODS = 64;
    /** The folder of a pod's files in a run of several pods, before its completion index. */
    public static final String POD_DIR = "pod-";
    /** Longest key S3 takes, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;

    private SubmissionLayout() {
    }

    /** {@code <submission_id>/}. */
    public static String prefix(String submissionId) {
        if (submissionId == null || !submissionId.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("a submission id is letters, digits, '_' and '-', was '"
                    + submissionId + "'");
        }
        return submissionId + "/";
    }

    /** The key of a path of the logs volume (or a control object) under the submission's prefix. */
    public static String key(String submissionId, String relative) {
        if (relative.startsWith("/") || relative.contains("..") || relative.contains("//")) {
            throw new IllegalArgumentException("not a plain relative path: " + relative);
        }
        return prefix(submissionId) + relative;
    }

    /**
     * Where pod {@code index} of a run of {@code pods} mirrors its logs volume, as a path relative to the submission's
     * prefix: the prefix itself in a run of one pod (the seeds' layout), else {@code pod-<index>/}. Each pod's files
     * are its own: its logcopy writes nothing elsewhere, so a participant's code in one pod cannot stand in for
     * another pod's files, and a replacement pod resumes from its index's files only.
     */
    public static String podDir(int index, int pods) {
        if (pods < 1 || pods > MAX_PODS || index < 0 || index >= pods) {
            throw new IllegalArgumentException("pod " + index + " of a run of " + pods + " pods (1 to " + MAX_PODS
                    + ")");
        }
        return pods == 1 ? "" : POD_DIR + index + "/";
    }

    /** A path of pod {@code index}'s logs volume, relative to the submission's prefix ({@link #podDir}). */
    public static String podPath(int index, int pods, String relative) {
        return podDir(index, pods) + relative;
    }

    /**
     * The path of the run's pair {@code runPair} (from 1, pod by pod: pod 0's pairs first) relative to the submission's
     * prefix: {@code pairPath} of its number in its pod, in its pod's folder.
     */
    public static String runPairPath(int runPair, int pairsPerPod, int pods, IntFunction<String> pairPath) {
        return podPath((runPair - 1) / pairsPerPod, pods, pairPath.apply((runPair - 1) % pairsPerPod + 1));
    }

    /** {@code <submission_id>/}, or {@code <submission_id>/pod-<index>/} in a run of several pods. */
    public static String podPrefix(String submissionId, int index, int pods) {
        return prefix(submissionId) + podDir(index, pods);
    }

    public static String cancelControl(String submissionId) {
        return key(submissionId, CANCEL_CONTROL);
    }

    /** {@code control/versions-run-<n>.json}: what run n drove with, as its init read it. */
    public static String runVersionsPath(int run) {
        if (run < 1) {
            throw new IllegalArgumentException("a run is numbered from 1, not " + run);
        }
        return CONTROL_DIR + "/versions-run-" + run + ".json";
    }

    /** {@code <submission_id>/control/versions-run-<n>.json}. */
    public static String runVersions(String submissionId, int run) {
        return key(submissionId, runVersionsPath(run));
    }

    /** {@code <submission_id>/containers-status/}. */
    public static String statusPrefix(String submissionId) {
        return key(submissionId, StatusFiles.DIRECTORY + "/");
    }

    /** Whether {@code key} lies under the submission's prefix (and climbs out of it by no {@code ..}). */
    public static boolean isUnder(String submissionId, String key) {
        return key != null && key.startsWith(prefix(submissionId)) && !key.contains("/../") && !key.endsWith("/..");
    }

    /** The results' location as the record keeps it: {@code s3://<bucket>/<submission_id>/}. */
    public static String location(String bucket, String submissionId) {
        return "s3://" + bucket + "/" + prefix(submissionId);
    }
}
