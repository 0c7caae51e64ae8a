package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.podruntime.results.ResultsRefresh;
import org.jboss.logging.Logger;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The logcopy role: every period, merge the agents' results and write EvalAI's files, upload what changed in the logs
 * volume, look for the cancel object, report progress; the first pass runs at once. Ends when every worker pair is
 * done (last pass, then {@code logcopy.done}, uploaded) or on cancel ({@code simulation.cancel}, uploaded). S3 and SQS
 * outages are retried with back-off and nothing is lost: a file or report that did not go out goes out later.
 */
public final class Logcopy {

    private static final Logger LOG = Logger.getLogger(Logcopy.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(60);

    public enum Ending {
        /** Every worker pair is done; {@code logcopy.done} is uploaded. */
        FINISHED,
        /** The cancel object was found; {@code simulation.cancel} is uploaded. */
        CANCELLED,
        /** Asked to stop (SIGTERM) before either. */
        STOPPED
    }

    private final LogcopySettings settings;
    private final LogsUpload uploads;
    private final CancelControl cancelControl;
    private final ProgressReport report;
    private final ResultsRefresh results;
    private final StatusWatch watch;
    private final RequestMeter meter;
    private final Outage s3Outage;
    private final Outage sqsOutage;
    private MergeResult lastResult;
    private String lastSummary = "";

    public Logcopy(LogcopySettings settings, S3Client s3, SqsClient sqs, RequestMeter meter, Clock clock) {
        this.settings = settings;
        this.meter = meter;
        this.uploads = new LogsUpload(s3, settings.bucket(), settings.prefix(), settings.logsDir(), meter,
                settings.multipartThreshold(), settings.partSize());
        this.cancelControl = new CancelControl(s3, settings.bucket(), settings.prefix(), meter);
        this.report = new ProgressReport(sqs, settings.queueUrl(), settings.submission(), settings.run(), meter, clock);
        this.results = new ResultsRefresh(settings.logsDir(), settings.workerPairs(), settings.expectedRoutes());
        this.watch = new StatusWatch(settings.statusDir(), settings.workerPairs());
        this.s3Outage = new Outage("S3", clock);
        this.sqsOutage = new Outage("SQS", clock);
    }

    /** Ends the loop soon (at the next wait), after one last upload attempt. Safe from any thread. */
    public void requestStop() {
        watch.requestStop();
    }

    public Ending run() throws InterruptedException {
        LOG.infof("logcopy: submission %s run %d, %d worker pairs, %s routes expected, every %s: s3://%s/%s, progress to %s",
                settings.submissionId(), settings.run(), settings.workerPairs(),
                settings.expectedRoutes().isPresent() ? settings.expectedRoutes().getAsInt() : "unknown",
                settings.period(), settings.bucket(), settings.prefix(), settings.queueUrl());
        try {
            Files.createDirectories(settings.statusDir());
            int remote = uploads.seedFromRemote();
            s3Outage.succeeded();
            if (remote > 0) {
                LOG.infof("logcopy: %d files already under s3://%s/%s (a resumed run) are not uploaded again", remote,
                        settings.bucket(), settings.prefix());
            }
        } catch (IOException | UncheckedIOException | SdkException e) {
            s3Outage.failed(e);
        }
        while (true) {
            if (watch.stopRequested()) {
                lastAttempt();
                return Ending.STOPPED;
            }
            boolean workersDone = watch.allWorkersDone();
            MergeResult result = refreshResults();
            boolean uploaded = s3(uploads::uploadChanged) != null;
            if (uploaded && Boolean.TRUE.equals(s3(cancelControl::requested))) {
                return cancel(result);
            }
            boolean reported = uploaded && sqs(() -> report.send(result, results.resultsDigest())) != null;
            if (workersDone && uploaded && reported) {
                return finish(result);
            }
            boolean retrying = s3Outage.ongoing() || sqsOutage.ongoing();
            watch.await(retrying ? backOff() : settings.period(), !workersDone);
        }
    }

    private Ending cancel(MergeResult result) throws InterruptedException {
        LOG.infof("logcopy: s3://%s/%s%s found: the submission was cancelled; stopping every container",
                settings.bucket(), settings.prefix(), SubmissionLayout.CANCEL_CONTROL);
        writeStatusFile(StatusFiles.SIMULATION_CANCEL);
        untilDone(() -> s3(uploads::uploadChanged));
        untilDone(() -> sqs(() -> report.send(result, results.resultsDigest(), false, Progress.Ending.CANCELLED,
                List.of())));
        LOG.infof("logcopy: cancelled; %s", meter);
        return Ending.CANCELLED;
    }

    private Ending finish(MergeResult result) throws InterruptedException {
        LOG.infof("logcopy: every worker pair is done; last results: %d of %d routes, global results: %s",
                result.routesDone(), result.routesTotal(), result.globalResults() ? "yes" : "no");
        // Only now: logcopy.done tells results-relay that everything before it is in S3.
        writeStatusFile(StatusFiles.LOGCOPY_DONE);
        untilDone(() -> s3(uploads::uploadChanged));
        untilDone(() -> sqs(() -> report.send(result, results.resultsDigest(), false, Progress.Ending.FINISHED,
                List.of())));
        LOG.infof("logcopy: finished; %s", meter);
        return Ending.FINISHED;
    }

    /** On a stop: one more refresh and upload, no retries (the pod is going away). */
    private void lastAttempt() {
        refreshResults();
        try {
            s3(uploads::uploadChanged);
        } catch (RuntimeException e) {
            LOG.warnf("logcopy: last upload before stopping failed: %s", e.getMessage());
        }
        LOG.infof("logcopy: stopped before the end; %s", meter);
    }

    /** Retries with back-off until done; a stop request ends it (the pod is going away). */
    private void untilDone(Callable<Object> attempt) throws InterruptedException {
        while (true) {
            try {
                if (attempt.call() != null) {
                    return;
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            if (watch.stopRequested()) {
                return;
            }
            watch.await(backOff(), false);
        }
    }

    private MergeResult refreshResults() {
        try {
            MergeResult result = results.refresh();
            lastResult = result;
            logChange(result);
            return result;
        } catch (IOException | RuntimeException e) {
            LOG.errorf("logcopy: cannot write the merged results in %s: %s", settings.logsDir(), e.getMessage());
            return lastResult != null ? lastResult
                    : CheckpointMerge.merge(List.of(), settings.expectedRoutes());
        }
    }

    /** One line when the results change, not one per period (the log is uploaded too). */
    private void logChange(MergeResult result) {
        String summary = result.routesDone() + " of " + result.routesTotal() + " routes, global results: "
                + (result.globalResults() ? "yes, entry " + result.merged().entryStatus() : "no")
                + (result.refused() ? "; refused: " + String.join("; ", result.problems()) : "")
                + (result.skippedInputs().isEmpty() ? "" : "; no data from " + result.skippedInputs().size() + " agents");
        if (!Objects.equals(summary, lastSummary)) {
            lastSummary = summary;
            if (result.refused()) {
                LOG.warnf("logcopy: results: %s", summary);
            } else {
                LOG.infof("logcopy: results: %s", summary);
            }
            result.invalidReason().ifPresent(reason -> LOG.warnf("logcopy: the entry is Invalid: %s", reason));
        }
    }

    private void writeStatusFile(String name) {
        try {
            Files.createDirectories(settings.statusDir());
            Files.write(watch.file(name), new byte[0]);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + watch.file(name), e);
        }
    }

    private Duration backOff() {
        int failures = Math.max(1, Math.max(s3Outage.failures(), sqsOutage.failures()));
        Duration first = settings.period().compareTo(FIRST_RETRY) < 0 ? settings.period() : FIRST_RETRY;
        Duration longest = settings.period().compareTo(LONGEST_RETRY) > 0 ? settings.period() : LONGEST_RETRY;
        Duration delay = first.multipliedBy(1L << Math.min(failures - 1, 16));
        return delay.compareTo(longest) > 0 ? longest : delay;
    }

    /** The S3 call's result, or null when S3 failed (the outage is noted). */
    private <T> T s3(Attempt<T> call) {
        return call(call, s3Outage);
    }

    private <T> T sqs(Attempt<T> call) {
        return call(call, sqsOutage);
    }

    private static <T> T call(Attempt<T> call, Outage outage) {
        try {
            T value = call.run();
            outage.succeeded();
            return value;
        } catch (SdkException | IOException | UncheckedIOException e) {
            // The url-connection client lets some broken connections out as UncheckedIOException, not SdkException.
            outage.failed(e);
            return null;
        }
    }

    @FunctionalInterface
    private interface Attempt<T> {
        T run() throws IOException;
    }
}
