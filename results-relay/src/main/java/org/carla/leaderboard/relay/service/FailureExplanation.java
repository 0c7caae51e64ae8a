package org.carla.leaderboard.relay.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.relay.config.RelayConfig;

/**
 * The stderr of a failed submission: why the Job ended, then the last lines of each failing container's log as logcopy
 * uploaded it, bounded in lines and bytes, unless the track hides logs.
 */
@ApplicationScoped
class FailureExplanation {

    static final String LOGS_HIDDEN = "The logs of this track are not shown to participants.";
    static final String LOGCOPY_LOG_KEPT = "(logcopy uploads the run's files for the leaderboard; its log is kept for"
            + " the leaderboard's operators)";

    private static final String LOGCOPY = "logcopy";

    private final SubmissionFiles files;
    private final RelayConfig.LogTail limits;

    FailureExplanation(SubmissionFiles files, RelayConfig config) {
        this.files = files;
        this.limits = config.logTail();
    }

    /**
     * The stderr of a failed run: why (the verdict's reason, else the Job's end), then the tail of each failing
     * container's own log. logcopy's log is never shown: it is the backend's uploader, not the participant's code, and
     * names the bucket, the queue and the account.
     */
    String explain(JobFinished event, String bucket, boolean hideLogs, Optional<String> verdict) {
        var text = new StringBuilder("The submission failed: ").append(verdict.orElseGet(() -> reason(event)))
                .append('\n');
        if (hideLogs) {
            return text.append(LOGS_HIDDEN).append('\n').toString();
        }
        var failing = failingContainers(event.containers());
        if (failing.isEmpty()) {
            return text.append("No container reported an error.\n").toString();
        }
        for (ContainerOutcome container : failing) {
            text.append('\n').append("=== ").append(container.name()).append(describe(container)).append(" ===\n");
            if (LOGCOPY.equals(container.name())) {
                text.append(LOGCOPY_LOG_KEPT).append('\n');
                continue;
            }
            var tail = LogsLayout.containerLog(container.name())
                    .flatMap(path -> files.tail(bucket, event.submission().submissionId(), path, limits.maxBytes()));
            text.append(tail.map(log -> SubmissionFiles.lastLines(log, limits.maxLines()))
                    .filter(lines -> !lines.isBlank()).map(lines -> lines + "\n").orElse("(no log was uploaded)\n"));
        }
        return text.toString();
    }

    static String reason(JobFinished event) {
        String reason = event.reason() == null ? "" : event.reason();
        if (event.outcome() == JobFinished.Outcome.DELETED && reason.equals(JobFinished.CAPACITY_WAIT_EXCEEDED)) {
            return "it waited for a GPU node longer than the cluster allows and never ran (" + reason
                    + "); it used no GPU time. Resubmit, or ask the organisers if this happens again.";
        }
        if (event.outcome() == JobFinished.Outcome.DELETED) {
            return "its Job was deleted before it finished" + (reason.isBlank() ? "." : " (" + reason + ").");
        }
        return switch (reason) {
            case "BackoffLimitExceeded" ->
                "its containers failed more often than the track allows (BackoffLimitExceeded).";
            case "DeadlineExceeded" -> "it ran longer than the track's deadline (DeadlineExceeded).";
            case "" -> "not every container finished its work.";
            default -> reason + ".";
        };
    }

    /** The containers that ended with an error; failing those, the ones that had to be restarted. */
    static List<ContainerOutcome> failingContainers(List<ContainerOutcome> containers) {
        var failed = containers.stream()
                .filter(c -> c.lastExitCode() != null && c.lastExitCode() != 0).toList();
        return failed.isEmpty() ? containers.stream().filter(c -> c.restartCount() > 0).toList() : failed;
    }

    private static String describe(ContainerOutcome container) {
        var parts = new ArrayList<String>();
        if (container.lastExitCode() != null) {
            parts.add("exit code " + container.lastExitCode());
        }
        if (container.lastReason() != null && !container.lastReason().isBlank()) {
            parts.add(container.lastReason());
        }
        if (container.restartCount() > 0) {
            parts.add("restarted " + container.restartCount() + (container.restartCount() == 1 ? " time" : " times"));
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }
}
