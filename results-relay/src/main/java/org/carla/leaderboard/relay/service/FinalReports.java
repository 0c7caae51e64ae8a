package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.record.GpuUsage;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.store.Qualifiers;
import org.carla.leaderboard.relay.store.SubmissionFiles;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The end of a submission: its Job finished, or it was never launched. In this order, so that a crash at any point
 * loses nothing and repeats nothing EvalAI would notice:
 * <ol>
 * <li>decide the final status and write it with the metrics to the record, conditional on the record not being final
 * yet, with {@code evalai_final_sent = false};</li>
 * <li>send it to EvalAI and re-read the submission until EvalAI shows it;</li>
 * <li>set {@code evalai_final_sent = true}.</li>
 * </ol>
 * An event for a final record whose report was sent is dropped. One whose report was not sent (a crash, or EvalAI
 * down, between 1 and 3) sends the recorded status again: the update is idempotent, so the worst case is the same
 * report twice, never none.
 */
@ApplicationScoped
class FinalReports {

    static final String NOT_ALLOWED = "You are not allowed to submit to this track. Please, run the qualifier track first.";
    static final String CANCELLED_BEFORE_LAUNCH = "The submission was cancelled before it started.";

    private static final Logger LOG = Logger.getLogger(FinalReports.class);

    private final SubmissionRecords records;
    private final SubmissionFiles files;
    private final EvaluationFiles evaluationFiles;
    private final FailureExplanation failures;
    private final Qualifiers qualifiers;
    private final EvalAiClient evalAi;
    private final RelayMetrics metrics;
    private final Duration lastReportWait;
    private final ObjectMapper mapper;
    private final TrackCatalog catalog;

    FinalReports(SubmissionRecords records, SubmissionFiles files, EvaluationFiles evaluationFiles,
            FailureExplanation failures, Qualifiers qualifiers, EvalAiClient evalAi, RelayMetrics metrics,
            RelayConfig config, ObjectMapper mapper, TrackCatalog catalog) {
        this.catalog = catalog;
        this.records = records;
        this.files = files;
        this.evaluationFiles = evaluationFiles;
        this.failures = failures;
        this.qualifiers = qualifiers;
        this.evalAi = evalAi;
        this.metrics = metrics;
        this.lastReportWait = config.lastReportWait();
        this.mapper = mapper;
    }

    void jobFinished(SubmissionRecord record, JobFinished event, Destination destination) {
        if (!record.isTerminal()) {
            awaitLastReport(record, event);
        }
        report(record, event, destination, (current, recorded) -> composeFinished(current, event, destination,
                recorded));
    }

    void notLaunched(SubmissionRecord record, NotLaunched event, Destination destination) {
        report(record, event, destination, (current, recorded) -> composeNotLaunched(event, recorded));
    }

    /**
     * logcopy's last report (its ending, what it could not upload) travels on another queue than the Job's end and
     * may be handled after it: a run whose pod ran waits for it up to {@code relay.last-report-wait} after the Job
     * ended (the event goes back to the queue meanwhile); a logcopy killed without a goodbye sends none.
     */
    private void awaitLastReport(SubmissionRecord record, JobFinished event) {
        if (record.lastEnding() != null || event.startedAt() == null) {
            return;
        }
        Instant ended = event.finishedAt() != null ? event.finishedAt() : event.at();
        Instant until = ended.plus(lastReportWait);
        if (Instant.now().isBefore(until)) {
            throw new LastReportPendingException("submission " + record.submissionId() + ": waiting for logcopy's"
                    + " last report of run " + record.run() + " until " + until);
        }
    }

    private void report(SubmissionRecord record, SubmissionEvent event, Destination destination, Composer composer) {
        var submission = event.submission();
        Optional<SubmissionStatus> recorded = Optional.empty();
        if (record.isTerminal()) {
            if (record.finalSent()) {
                LOG.infof("submission %d: dropping %s of run %d, already reported %s to EvalAI",
                        submission.submissionPk(), event.type(), record.run(), record.status());
                metrics.dropped(event.type(), RelayMetrics.FINAL);
                return;
            }
            recorded = Optional.of(record.status());
            LOG.infof("submission %d: run %d %s recorded but not confirmed by EvalAI; sending it again",
                    submission.submissionPk(), record.run(), record.status());
        }
        var report = composer.compose(record, recorded);
        if (recorded.isEmpty() && !records.recordFinal(destination.table(), record, report.status(), endTime(event),
                report.metrics(), report.failure(), report.gpuHours(), Instant.now())) {
            // Another event of the run made the record final in the meantime (or the run was superseded).
            var winner = records.find(destination.table(), record.teamId(), record.submissionId())
                    .filter(found -> found.run() == record.run() && found.isTerminal() && !found.finalSent());
            if (winner.isEmpty()) {
                LOG.infof("submission %d: dropping %s of run %d, the record moved on meanwhile",
                        submission.submissionPk(), event.type(), record.run());
                metrics.dropped(event.type(), RelayMetrics.FINAL);
                return;
            }
            report = composer.compose(winner.get(), Optional.of(winner.get().status()));
        }
        // The run is over: a cancel request left behind must not stop the next run's pod.
        files.withdrawCancel(destination.bucket(), record.submissionId());
        if (report.qualifiesFor() != null) {
            qualifiers.admit(submission.teamId(), report.qualifiesFor(), submission.submissionId());
            LOG.infof("submission %d: team %d qualified for %s", submission.submissionPk(), submission.teamId(),
                    report.qualifiesFor());
        }
        sendAndConfirm(submission, report.status(), report.evaluation());
        records.markFinalSent(destination.table(), record, report.status());
        metrics.relayed(event.type());
        LOG.infof("submission %d: run %d %s reported to EvalAI", submission.submissionPk(), record.run(),
                report.status());
    }

    private FinalReport composeNotLaunched(NotLaunched event, Optional<SubmissionStatus> recorded) {
        boolean notAllowed = event.reason() == NotLaunched.Reason.NOT_ALLOWED;
        var status = recorded.orElse(notAllowed ? SubmissionStatus.FAILED : SubmissionStatus.CANCELLED);
        String stdout = (notAllowed ? NOT_ALLOWED : CANCELLED_BEFORE_LAUNCH) + "\n";
        String stderr = notAllowed ? NOT_ALLOWED + "\n" : "";
        return new FinalReport(status, new Evaluation(EvaluationFiles.noResults(), stdout, stderr,
                mapper.createObjectNode()), allMetrics(Map.of()), null, 0);
    }

    private FinalReport composeFinished(SubmissionRecord record, JobFinished event, Destination destination,
            Optional<SubmissionStatus> recorded) {
        String id = record.submissionId();
        var merged = evaluationFiles.mergedResults(destination.bucket(), id, record.expectedRoutes());
        var verdict = RunVerdict.judge(record.cancelRequested(), files.statusFiles(destination.bucket(), id),
                event.workerPairs(), merged);
        var status = recorded.orElse(verdict.status());
        String stderr = "";
        if (status == SubmissionStatus.FAILED) {
            var reason = verdict.status() == SubmissionStatus.FAILED ? verdict.reason() : Optional.<String>empty();
            stderr = failures.explain(event, destination.bucket(), destination.hidesLogs(), reason);
        }
        stderr += NotUploaded.notice(record.notUploaded());
        double gpuHours = gpuHours(record, event);
        // The record's GPU-hours hold this run's once its final status is recorded.
        double allRuns = record.gpuHours() + (recorded.isPresent() ? 0 : gpuHours);
        var evaluation = evaluationFiles.evaluation(verdict.shown(), stderr, record.run(), gpuHours, allRuns);
        var metricValues = allMetrics(EvaluationFiles.metrics(evaluation.result()));
        String qualifiesFor = null;
        var track = destination.track().filter(spec -> spec.qualifiesFor() != null);
        if (status == SubmissionStatus.FINISHED && track.isPresent()) {
            var qualifier = QualifierVerdict.judge(track.get(), metricValues);
            evaluation = new Evaluation(evaluation.result(), qualifier.text() + evaluation.stdout(), stderr,
                    evaluation.metadata());
            qualifiesFor = qualifier.passed() ? track.get().qualifiesFor() : null;
        }
        return new FinalReport(status, evaluation, metricValues, qualifiesFor, gpuHours);
    }

    /** The run's GPU-hours ({@link GpuUsage}); 0 when the record's instance type has no GPUs configured. */
    private double gpuHours(SubmissionRecord record, JobFinished event) {
        OptionalInt gpus = catalog.gpus(record.instanceType());
        if (gpus.isEmpty()) {
            LOG.warnf("submission %s: instance type '%s' has no GPUs configured (evaluation.instance-gpus);"
                    + " its GPU-hours are not counted", record.submissionId(), record.instanceType());
            return 0;
        }
        return GpuUsage.ofRun(event, gpus.getAsInt());
    }

    /** Every metric of the record, {@code null} (stored "-") where the results have none. */
    private static Map<String, Double> allMetrics(Map<String, Double> found) {
        var all = new LinkedHashMap<String, Double>();
        for (Metric metric : Metric.values()) {
            all.put(metric.attribute(), found.get(metric.attribute()));
        }
        return all;
    }

    private static Instant endTime(SubmissionEvent event) {
        if (event instanceof JobFinished finished && finished.finishedAt() != null) {
            return finished.finishedAt();
        }
        return event.at();
    }

    /** Sends the final status, then reads the submission until EvalAI shows it ({@link EvalAiClient#awaitShown}). */
    private void sendAndConfirm(SubmissionIdentity submission, SubmissionStatus status, Evaluation evaluation) {
        evalAi.sendFinal(submission, status, evaluation);
        evalAi.awaitShown(submission, status);
    }

    /** The report of the run from its record as read, with the status recorded already when there is one. */
    @FunctionalInterface
    private interface Composer {
        FinalReport compose(SubmissionRecord current, Optional<SubmissionStatus> recorded);
    }

    private record FinalReport(SubmissionStatus status, Evaluation evaluation, Map<String, Double> metrics,
            String qualifiesFor, double gpuHours) {

        /** What the record keeps of a failure: the first line of the participant's stderr. */
        String failure() {
            return status == SubmissionStatus.FAILED ? evaluation.stderr() : null;
        }
    }

    /** The Job ended before logcopy's last report was handled: the event is tried again shortly. */
    static final class LastReportPendingException extends RuntimeException {
        LastReportPendingException(String message) {
            super(message);
        }
    }
}
