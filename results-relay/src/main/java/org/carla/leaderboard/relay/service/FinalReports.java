package org.carla.leaderboard.relay.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.domain.record.GpuUsage;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.service.EvalAiOutbox.Final;
import org.carla.leaderboard.relay.store.Qualifiers;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The end of a submission: its Job finished, it was never launched, or a stuck rule ends or re-sends it. It composes
 * and records; {@link EvalAiOutbox} sends and confirms. In this order, so that a crash at any point loses nothing and
 * repeats nothing EvalAI would notice:
 * <ol>
 * <li>decide the final status and write it with the metrics to the record, conditional on the record not being final
 * yet, with {@code evalai_final_sent = false};</li>
 * <li>send it to EvalAI (the outbox, at once) and read, at the run's next turn, what EvalAI shows;</li>
 * <li>set {@code evalai_final_sent = true} ({@link #confirmed}).</li>
 * </ol>
 * An event for a final record whose report was confirmed is dropped. One whose report was recorded and not confirmed
 * (a relay killed, or EvalAI down, between 1 and 3; another replica's) is composed again and read first: EvalAI showing
 * it confirms it, showing another status sends it again (the update is idempotent).
 */
@ApplicationScoped
class FinalReports {

    static final String NOT_ALLOWED = "You are not allowed to submit to this track. Please, run the qualifier track first.";
    static final String CANCELLED_BEFORE_LAUNCH = "The submission was cancelled before it started.";

    /** What asked for a report when no event did: the stuck rules (for the logs and {@code relay_events_*}). */
    static final String STALLED = "stuck-no-progress";
    static final String UNCONFIRMED = "stuck-unconfirmed-final";

    private static final Logger LOG = Logger.getLogger(FinalReports.class);

    private final SubmissionRecords records;
    private final SubmissionFiles files;
    private final EvaluationFiles evaluationFiles;
    private final FailureExplanation failures;
    private final Qualifiers qualifiers;
    private final RelayMetrics metrics;
    private final Duration lastReportWait;
    private final ObjectMapper mapper;
    private final TrackCatalog catalog;
    private final Clock clock;

    FinalReports(SubmissionRecords records, SubmissionFiles files, EvaluationFiles evaluationFiles,
            FailureExplanation failures, Qualifiers qualifiers, RelayMetrics metrics, RelayConfig config,
            ObjectMapper mapper, TrackCatalog catalog, Clock clock) {
        this.catalog = catalog;
        this.clock = clock;
        this.records = records;
        this.files = files;
        this.evaluationFiles = evaluationFiles;
        this.failures = failures;
        this.qualifiers = qualifiers;
        this.metrics = metrics;
        this.lastReportWait = config.lastReportWait();
        this.mapper = mapper;
    }

    /** The run's report at its Job's end; empty when it is not this run's to send (sent, or the record moved on). */
    Optional<Final> jobFinished(SubmissionRecord record, JobFinished event, Destination destination) {
        if (!record.isTerminal()) {
            awaitLastReport(record, event);
        }
        return report(record, event, destination, (current, recorded) -> composeFinished(current, event, destination,
                recorded));
    }

    Optional<Final> notLaunched(SubmissionRecord record, NotLaunched event, Destination destination) {
        return report(record, event, destination, (current, recorded) -> composeNotLaunched(
                event.reason() == NotLaunched.Reason.NOT_ALLOWED, recorded));
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
        if (clock.instant().isBefore(until)) {
            throw new LastReportPendingException("submission " + record.submissionId() + ": waiting for logcopy's"
                    + " last report of run " + record.run() + " until " + until);
        }
    }

    /**
     * The stuck rule no-progress past its fail bound: the run ends FAILED with {@code why} as what the participant
     * reads, the results reported so far shown, its GPU-hours counted to now. job-launcher then deletes the run's Job
     * (the record is final), and that Job's end finds the report sent.
     */
    Optional<Final> stalled(SubmissionRecord record, SubmissionIdentity submission, Destination destination,
            String why) {
        Instant now = clock.instant();
        return report(record, submission, STALLED, now, destination, (current, recorded) -> compose(current, destination,
                recorded.or(() -> Optional.of(SubmissionStatus.FAILED)), current.workerPairs().orElse(1), Set.of(),
                reason -> why + "\n", gpuHours(current, now), recorded.isPresent()));
    }

    /**
     * The stuck rule unconfirmed-final: the run's recorded final status sent again, until EvalAI shows it. Without the
     * event that ended the run, the report is composed again from the record and the submission's files: the same
     * status, results and metrics; for a failure the recorded reason (its first line) without the containers' logs;
     * the run's GPU-hours from its recorded start and end. A run whose pod never started and that was not allowed or
     * cancelled gets the not-launched report again.
     */
    Optional<Final> resend(SubmissionRecord record, SubmissionIdentity submission, Destination destination) {
        Instant ended = record.times().ended() != null ? record.times().ended() : clock.instant();
        return report(record, submission, UNCONFIRMED, ended, destination, (current, recorded) -> {
            boolean notAllowed = NOT_ALLOWED.equals(current.failureReason());
            if (current.times().started() == null && (notAllowed || current.is(SubmissionStatus.CANCELLED))) {
                return composeNotLaunched(notAllowed, recorded);
            }
            return compose(current, destination, recorded, current.workerPairs().orElse(1), Set.of(),
                    reason -> current.failureReason() == null ? "" : current.failureReason() + "\n",
                    gpuHours(current, ended), recorded.isPresent());
        });
    }

    private Optional<Final> report(SubmissionRecord record, SubmissionEvent event, Destination destination,
            Composer composer) {
        return report(record, event.submission(), event.type(), endTime(event), destination, composer);
    }

    /**
     * {@code type}: what asked for the report (an event's type, or a stuck rule), for the logs and the metrics. The
     * report recorded, for the outbox to send (or, recorded before, to read first); empty when it is not this run's to
     * send (confirmed already, or the record moved on).
     */
    private Optional<Final> report(SubmissionRecord record, SubmissionIdentity submission, String type,
            Instant endTime, Destination destination, Composer composer) {
        Optional<SubmissionStatus> recorded = Optional.empty();
        if (record.isTerminal()) {
            if (record.finalSent()) {
                LOG.infof("submission %d: dropping %s of run %d, already reported %s to EvalAI",
                        submission.submissionPk(), type, record.run(), record.status());
                metrics.dropped(type, RelayMetrics.FINAL);
                return Optional.empty();
            }
            recorded = Optional.of(record.status());
            LOG.infof("submission %d: run %d %s recorded but not confirmed by EvalAI; EvalAI is read first, and it is"
                    + " sent again unless EvalAI shows it", submission.submissionPk(), record.run(), record.status());
        }
        var report = composer.compose(record, recorded);
        // A silent run is failed only if it is still silent: a report that arrived meanwhile keeps it running.
        if (recorded.isEmpty() && !records.recordFinal(destination.table(), record, report.status(), endTime,
                report.metrics(), report.failure(), report.gpuHours(), report.versions(), clock.instant(),
                STALLED.equals(type))) {
            // Another event of the run made the record final in the meantime (or the run was superseded).
            var winner = records.find(destination.table(), record.teamId(), record.submissionId())
                    .filter(found -> found.run() == record.run() && found.isTerminal() && !found.finalSent());
            if (winner.isEmpty()) {
                LOG.infof("submission %d: dropping %s of run %d, the record moved on meanwhile",
                        submission.submissionPk(), type, record.run());
                metrics.dropped(type, RelayMetrics.FINAL);
                return Optional.empty();
            }
            recorded = Optional.of(winner.get().status());
            report = composer.compose(winner.get(), recorded);
        }
        // The run is over: a cancel request left behind must not stop the next run's pod.
        files.withdrawCancel(destination.bucket(), record.submissionId());
        if (report.qualifiesFor() != null) {
            qualifiers.admit(submission.teamId(), report.qualifiesFor(), submission.submissionId());
            LOG.infof("submission %d: team %d qualified for %s", submission.submissionPk(), submission.teamId(),
                    report.qualifiesFor());
        }
        return Optional.of(new Final(record, submission, report.status(), report.evaluation(), destination, type,
                recorded.isPresent()));
    }

    /** The outbox sent the report. */
    void sent(Final report) {
        metrics.relayed(report.type());
        LOG.infof("submission %d: run %d %s sent to EvalAI, confirmed at the run's next ask",
                report.submission().submissionPk(), report.record().run(), report.status());
    }

    /**
     * Whether the report is still the run's to confirm: the record still that run, with that status, unconfirmed (a
     * resume meanwhile makes EvalAI show the next run: sending the report again would overwrite it).
     */
    boolean unconfirmed(Final report) {
        var sentFor = report.record();
        boolean current = records.find(report.destination().table(), sentFor.teamId(), sentFor.submissionId())
                .filter(record -> record.run() == sentFor.run() && record.is(report.status()) && !record.finalSent())
                .isPresent();
        if (!current) {
            LOG.infof("submission %d: the confirmation of run %d %s dropped, the record moved on",
                    report.submission().submissionPk(), sentFor.run(), report.status());
        }
        return current;
    }

    /** EvalAI shows the run's final status: {@code evalai_final_sent}. */
    void confirmed(Final report) {
        records.markFinalSent(report.destination().table(), report.record(), report.status());
        LOG.infof("submission %d: run %d %s reported to EvalAI", report.submission().submissionPk(),
                report.record().run(), report.status());
    }

    private FinalReport composeNotLaunched(boolean notAllowed, Optional<SubmissionStatus> recorded) {
        var status = recorded.orElse(notAllowed ? SubmissionStatus.FAILED : SubmissionStatus.CANCELLED);
        String stdout = (notAllowed ? NOT_ALLOWED : CANCELLED_BEFORE_LAUNCH) + "\n";
        String stderr = notAllowed ? NOT_ALLOWED + "\n" : "";
        return new FinalReport(status, new Evaluation(EvaluationFiles.noResults(), stdout, stderr,
                mapper.createObjectNode()), allMetrics(Map.of()), null, 0, Optional.empty());
    }

    private FinalReport composeFinished(SubmissionRecord record, JobFinished event, Destination destination,
            Optional<SubmissionStatus> recorded) {
        return compose(record, destination, recorded, event.workerPairs(), event.indexesThatNeverRan(record.pods()),
                reason -> failures.explain(event, destination.bucket(), record.pods(), destination.hidesLogs(), reason),
                gpuHours(record, event), recorded.isPresent());
    }

    /**
     * The report of a run whose pod ran: the verdict of its files, or {@code status} when it is decided already;
     * {@code explain} gives a failure's stderr from the verdict's reason; {@code gpuCounted}: the record's GPU-hours
     * hold this run's already; {@code neverRan}: the pods of a run of several that never ran (the launcher's report),
     * whose done files are not expected.
     */
    private FinalReport compose(SubmissionRecord record, Destination destination, Optional<SubmissionStatus> decided,
            int workerPairs, Set<Integer> neverRan, Function<Optional<String>, String> explain, double gpuHours,
            boolean gpuCounted) {
        String id = record.submissionId();
        int pods = record.pods();
        var merged = evaluationFiles.mergedResults(destination.bucket(), id, record.expectedRoutes(), workerPairs, pods);
        boolean unrequestedCancel = Progress.Ending.UNREQUESTED_CANCEL.name().equals(record.lastEnding());
        boolean claimed = destination.track().filter(TrackSpec::claimsRoutes).isPresent();
        var statusFiles = IntStream.range(0, pods).filter(index -> !neverRan.contains(index))
                .mapToObj(index -> files.statusFiles(destination.bucket(), id, index, pods).stream()
                        .map(SubmissionFiles.StatusFile::name).toList()).toList();
        var verdict = RunVerdict.judge(record.cancelRequested(), unrequestedCancel, statusFiles, workerPairs, merged,
                () -> claimed ? GaveUpRoutes.reason(files, destination.bucket(), id, workerPairs, pods)
                        : Optional.empty());
        var status = decided.orElse(verdict.status());
        String stderr = "";
        if (status == SubmissionStatus.FAILED) {
            var reason = verdict.status() == SubmissionStatus.FAILED ? verdict.reason() : Optional.<String>empty();
            stderr = explain.apply(reason);
        }
        stderr += NotUploaded.notice(record.notUploaded());
        // The record's GPU-hours hold this run's once its final status is recorded.
        double allRuns = record.gpuHours() + (gpuCounted ? 0 : gpuHours);
        // What the run's init read in the Leaderboard image: a control object, which no file of the pod overwrites.
        Optional<RunVersions> versions = files.runVersions(destination.bucket(), id, record.run());
        var evaluation = evaluationFiles.evaluation(verdict.shown(), stderr, record.run(), gpuHours, allRuns,
                record.images(), versions);
        var metricValues = allMetrics(EvaluationFiles.metrics(evaluation.result()));
        String qualifiesFor = null;
        var track = destination.track().filter(spec -> spec.qualifiesFor() != null);
        if (status == SubmissionStatus.FINISHED && track.isPresent()) {
            var qualifier = QualifierVerdict.judge(track.get(), metricValues);
            evaluation = new Evaluation(evaluation.result(), qualifier.text() + evaluation.stdout(), stderr,
                    evaluation.metadata());
            qualifiesFor = qualifier.passed() ? track.get().qualifiesFor() : null;
        }
        return new FinalReport(status, evaluation, metricValues, qualifiesFor, gpuHours, versions);
    }

    /** The run's GPU-hours ({@link GpuUsage}); 0 when the record's instance type has no GPUs configured. */
    private double gpuHours(SubmissionRecord record, JobFinished event) {
        OptionalInt gpus = gpus(record);
        return gpus.isEmpty() ? 0 : GpuUsage.ofRun(event, gpus.getAsInt());
    }

    /** Without the Job's end (a stuck rule's report): every GPU of the node from the pod's start to {@code end}. */
    private double gpuHours(SubmissionRecord record, Instant end) {
        OptionalInt gpus = gpus(record);
        return gpus.isEmpty() ? 0 : GpuUsage.soFar(record.times().started(), end, gpus.getAsInt());
    }

    private OptionalInt gpus(SubmissionRecord record) {
        OptionalInt gpus = catalog.gpus(record.instanceType());
        if (gpus.isEmpty()) {
            LOG.warnf("submission %s: instance type '%s' has no GPUs configured (evaluation.instance-gpus);"
                    + " its GPU-hours are not counted", record.submissionId(), record.instanceType());
        }
        return gpus;
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

    /** The report of the run from its record as read, with the status recorded already when there is one. */
    @FunctionalInterface
    private interface Composer {
        FinalReport compose(SubmissionRecord current, Optional<SubmissionStatus> recorded);
    }

    private record FinalReport(SubmissionStatus status, Evaluation evaluation, Map<String, Double> metrics,
            String qualifiesFor, double gpuHours, Optional<RunVersions> versions) {

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
