package org.carla.leaderboard.domain.status;

import java.util.Locale;

/** A submission's status as EvalAI reports it ({@code GET /api/jobs/submission/{pk}}), read case-insensitively. */
public enum EvalAiStatus {
    SUBMITTING,
    SUBMITTED,
    QUEUED,
    RUNNING,
    PARTIALLY_EVALUATED,
    RESUMING,
    FINISHED,
    FAILED,
    CANCELLED,
    ARCHIVED,
    /** A status this code does not know; treated as an ordinary submission. */
    UNKNOWN;

    public static EvalAiStatus parse(String value) {
        if (value == null) {
            return UNKNOWN;
        }
        String normalised = value.trim().toUpperCase(Locale.ROOT).replace(' ', '_').replace('-', '_');
        for (EvalAiStatus status : values()) {
            if (status.name().equals(normalised)) {
                return status;
            }
        }
        return UNKNOWN;
    }

    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether EvalAI showing this status tells that it showed our final {@code status}: it is that status, or a host
     * resumed the submission, which EvalAI allows from {@code failed} only ({@code resume_submission}).
     */
    public boolean follows(SubmissionStatus status) {
        return name().equals(status.name()) || this == RESUMING && status == SubmissionStatus.FAILED;
    }
}
