package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.results.Metric;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.EvalAi;
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
    private final EvalAi evalAi;
    private final RelayMetrics metrics;
    private final RelayConfig.Confirm confirm;
    private final ObjectMapper mapper;

    FinalReports(SubmissionRecords records, SubmissionFiles files, EvaluationFiles evaluationFiles,
            FailureExplanation failures, Qualifiers qualifiers, EvalAi evalAi, RelayMetrics metrics,
            RelayConfig config, ObjectMapper mapper) {
        this.records = records;
        this.files = files;
        this.evaluationFiles = evaluationFiles;
        this.failures = failures;
        this.qualifiers = qualifiers;
        this.evalAi = evalAi;
        this.metrics = metrics;
        this.confirm = config.confirm();
        this.mapper = mapper;
    }

    void jobFinished(SubmissionRecord record, JobFinished event, Destination destination) {
        report(record, event, destination, () -> record.cancelRequested() ? SubmissionStatus.CANCELLED
                : StatusFiles.finalStatus(files.statusFiles(destination.bucket(), record.submissionId()),
                        event.workerPairs()));
    }

    void notLaunched(SubmissionRecord record, NotLaunched event, Destination destination) {
        report(record, event, destination, () -> event.reason() == NotLaunched.Reason.NOT_ALLOWED
                ? SubmissionStatus.FAILED : SubmissionStatus.CANCELLED);
    }

    private void report(SubmissionRecord record, SubmissionEvent event, Destination destination,
            StatusDecision decision) {
        var submission = event.submission();
        SubmissionStatus status;
        if (record.isTerminal()) {
            if (record.finalSent()) {
                LOG.infof("submission %d: dropping %s of run %d, already reported %s to EvalAI",
                        submission.submissionPk(), event.type(), record.run(), record.status());
                metrics.dropped(event.type(), RelayMetrics.FINAL);
                return;
            }
            status = record.status();
            LOG.infof("submission %d: run %d %s recorded but not confirmed by EvalAI; sending it again",
                    submission.submissionPk(), record.run(), status);
        } else {
            status = decision.decide();
        }
        var report = compose(event, destination, status);
        if (!record.isTerminal() && !records.recordFinal(destination.table(), record, status, endTime(event),
                report.metrics(), status == SubmissionStatus.FAILED ? report.evaluation().stderr() : null,
                Instant.now())) {
            // Another event of the run made the record final in the meantime (or the run was superseded).
            var winner = records.find(destination.table(), record.teamId(), record.submissionId())
                    .filter(found -> found.run() == record.run() && found.isTerminal() && !found.finalSent());
            if (winner.isEmpty()) {
                LOG.infof("submission %d: dropping %s of run %d, the record moved on meanwhile",
                        submission.submissionPk(), event.type(), record.run());
                metrics.dropped(event.type(), RelayMetrics.FINAL);
                return;
            }
            status = winner.get().status();
            report = compose(event, destination, status);
        }
        if (report.qualifiesFor() != null) {
            qualifiers.admit(submission.teamId(), report.qualifiesFor(), submission.submissionId());
            LOG.infof("submission %d: team %d qualified for %s", submission.submissionPk(), submission.teamId(),
                    report.qualifiesFor());
        }
        sendAndConfirm(submission, status, report.evaluation());
        records.markFinalSent(destination.table(), record, status);
        metrics.relayed(event.type());
        LOG.infof("submission %d: run %d %s reported to EvalAI", submission.submissionPk(), record.run(), status);
    }

    private FinalReport compose(SubmissionEvent event, Destination destination, SubmissionStatus status) {
        String id = event.submission().submissionId();
        if (event instanceof NotLaunched notLaunched) {
            String stdout = notLaunched.reason() == NotLaunched.Reason.NOT_ALLOWED ? NOT_ALLOWED
                    : CANCELLED_BEFORE_LAUNCH;
            String stderr = notLaunched.reason() == NotLaunched.Reason.NOT_ALLOWED ? NOT_ALLOWED : "";
            return new FinalReport(new Evaluation(EvaluationFiles.noResults(), stdout + "\n", stderr.isEmpty() ? "" : stderr + "\n",
                    mapper.createObjectNode()), allMetrics(Map.of()), null);
        }
        var finished = (JobFinished) event;
        var content = evaluationFiles.read(destination.bucket(), id);
        var metricValues = allMetrics(EvaluationFiles.metrics(content.results()));
        String stdout = content.stdout();
        String stderr = "";
        String qualifiesFor = null;
        if (status == SubmissionStatus.FAILED) {
            stderr = failures.explain(finished, destination.bucket(), destination.hidesLogs());
        }
        var track = destination.track().filter(spec -> spec.qualifiesFor() != null);
        if (status == SubmissionStatus.FINISHED && track.isPresent()) {
            var verdict = QualifierVerdict.judge(track.get(), metricValues);
            stdout = verdict.text() + stdout;
            qualifiesFor = verdict.passed() ? track.get().qualifiesFor() : null;
        }
        return new FinalReport(new Evaluation(content.results(), stdout, stderr, content.metadata()), metricValues,
                qualifiesFor);
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

    /** Sends the final status, then polls EvalAI, with back-off, until it shows it; bounded by the configured tries. */
    private void sendAndConfirm(SubmissionIdentity submission, SubmissionStatus status, Evaluation evaluation) {
        evalAi.sendFinal(submission, status, evaluation);
        Duration wait = confirm.firstBackoff();
        EvalAiStatus expected = EvalAiStatus.valueOf(status.name());
        for (int read = 1;; read++) {
            EvalAiStatus shown = evalAi.status(submission);
            if (shown == expected) {
                return;
            }
            if (read >= confirm.tries()) {
                throw new IllegalStateException("EvalAI still shows submission " + submission.submissionPk() + " "
                        + shown.value() + " after " + read + " reads, expected " + expected.value());
            }
            LOG.debugf("submission %d: EvalAI shows %s, expected %s; reading again in %d ms",
                    submission.submissionPk(), shown.value(), expected.value(), wait.toMillis());
            pause(wait);
            wait = wait.multipliedBy(2);
        }
    }

    private static void pause(Duration wait) {
        try {
            Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for EvalAI", e);
        }
    }

    @FunctionalInterface
    private interface StatusDecision {
        SubmissionStatus decide();
    }

    private record FinalReport(Evaluation evaluation, Map<String, Double> metrics, String qualifiesFor) {
    }
}
