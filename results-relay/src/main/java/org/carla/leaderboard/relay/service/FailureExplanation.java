package org.carla.leaderboard.relay.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished.ContainerOutcome;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.status.StatusFiles;
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
    /**
     * The Job's reason when its podFailurePolicy failed it: logcopy ended the pod with its restart-limit code, the
     * only FailJob rule of the launcher's Jobs.
     */
    static final String RESTART_LIMIT = "PodFailurePolicy";

    private final SubmissionFiles files;
    private final RelayConfig.LogTail limits;

    FailureExplanation(SubmissionFiles files, RelayConfig config) {
        this.files = files;
        this.limits = config.logTail();
    }

    /**
     * The stderr of a failed run: why (the verdict's reason, else the Job's end), then the tail of each failing
     * container's own log. logcopy's log is never shown: it is the backend's uploader, not the participant's code, and
     * names the bucket, the queue and the account. In a run of several pods each failing container is named with its
     * pod, and its log is read from that pod's folder.
     */
    String explain(JobFinished event, String bucket, int pods, boolean hideLogs, Optional<String> verdict) {
        var text = new StringBuilder("The submission failed: ").append(verdict.orElseGet(() -> reason(event)))
                .append('\n');
        if (hideLogs) {
            return text.append(LOGS_HIDDEN).append('\n').toString();
        }
        if (event.outcome() == JobFinished.Outcome.DELETED && JobFinished.IMAGE_PULL_FAILED.equals(event.reason())) {
            return text.toString(); // nothing of the submission ran: there is no log to show
        }
        var failing = failingContainers(event);
        if (failing.isEmpty()) {
            return text.append("No container reported an error.\n").toString();
        }
        for (ContainerOutcome container : failing) {
            Integer pod = container.pod() != null && container.pod() < pods ? container.pod() : null;
            text.append('\n').append("=== ").append(pod == null ? "" : "pod " + pod + " ").append(container.name())
                    .append(describe(container)).append(" ===\n");
            if (LOGCOPY.equals(container.name())) {
                text.append(LOGCOPY_LOG_KEPT).append('\n');
                continue;
            }
            var tail = LogsLayout.containerLog(container.name())
                    .map(path -> pod == null ? path : SubmissionLayout.podPath(pod, pods, path))
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
        if (event.outcome() == JobFinished.Outcome.DELETED && reason.equals(JobFinished.IMAGE_PULL_FAILED)) {
            return unpulled(event.containers());
        }
        if (event.outcome() == JobFinished.Outcome.DELETED) {
            return "its Job was deleted before it finished" + (reason.isBlank() ? "." : " (" + reason + ").");
        }
        return switch (reason) {
            case "BackoffLimitExceeded" ->
                "its containers failed more often than the track allows (BackoffLimitExceeded).";
            case RESTART_LIMIT ->
                "its simulators and agents crashed and were restarted more often than the track allows ("
                        + RESTART_LIMIT + ").";
            case "DeadlineExceeded" -> "it ran longer than the track's deadline (DeadlineExceeded).";
            case "" -> "not every container finished its work.";
            default -> reason + ".";
        };
    }

    /**
     * "your image X could not be pulled: why" for the participant's image (an agent's), the runtime's own reason; an
     * image of the evaluation's own is the organisers' to mend, and the message says so.
     */
    private static String unpulled(List<ContainerOutcome> containers) {
        var failed = containers.stream().filter(c -> c.image() != null && c.imageNotPulled()).toList();
        var participant = failed.stream().filter(c -> c.name().startsWith(StatusFiles.Role.AGENT.prefix() + "-"))
                .findFirst();
        if (participant.isPresent()) {
            return "your image " + participant.get().image() + " could not be pulled: " + why(participant.get()) + ".";
        }
        return failed.stream().findFirst().map(c -> "the evaluation's image " + c.image() + " could not be pulled: "
                + why(c) + "; the organisers are told. Resubmit once they have mended it.")
                .orElse("an image of the evaluation could not be pulled (" + JobFinished.IMAGE_PULL_FAILED + ").");
    }

    private static String why(ContainerOutcome container) {
        return container.message() == null || container.message().isBlank() ? container.lastReason()
                : container.message();
    }

    /**
     * The containers to show: when the pairs spent the crash budget, the ones that were restarted (the others were
     * stopped with the pod, and logcopy only ended it); otherwise the ones that ended with an error, failing those, the
     * ones that had to be restarted.
     */
    static List<ContainerOutcome> failingContainers(JobFinished event) {
        if (RESTART_LIMIT.equals(event.reason())) {
            return event.containers().stream().filter(c -> c.restartCount() > 0 && !LOGCOPY.equals(c.name()))
                    .toList();
        }
        return failingContainers(event.containers());
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
