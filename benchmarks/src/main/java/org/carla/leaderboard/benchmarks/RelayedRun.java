package org.carla.leaderboard.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.KubernetesComponent;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.carla.leaderboard.messaging.QueuesConfig;

import com.fasterxml.jackson.databind.ObjectMapper;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Benchmark 6's EvalAI side (6d): the packaged results-relay on the run's stack (active once it holds its Lease on
 * the stack's API server), with the EvalAI stand-in. The
 * submission exists on the stand-in and has its record as ingest-service and job-launcher write it (run 1, PENDING);
 * the harness sends the launcher's {@code job-started} before logcopy starts and its {@code job-finished} after logcopy
 * ended, and hands the relay every progress report logcopy sent. The relay's cancel check runs at the run's compressed
 * pace. What EvalAI received about the submission is read from the stand-in's record of calls, by kind.
 */
final class RelayedRun implements AutoCloseable {

    /** An open Leaderboard 2.0 track (SENSORS: no qualifier verdict at the end). */
    private static final long PHASE = 2077;
    private static final long TEAM = 7;
    /** The relay's cancel check in production (results-relay's {@code relay.cancel-check.every}). */
    static final Duration CANCEL_CHECK = Duration.ofSeconds(60);
    private static final Pattern CALLS_METRIC = Pattern.compile(
            "^relay_evalai_calls_total\\{([^}]*)} ([0-9.E+-]+)$", Pattern.MULTILINE);
    private static final Pattern KIND_LABEL = Pattern.compile("kind=\"([^\"]+)\"");

    private final RunningStack stack;
    private final Service relay;
    private final SubmissionIdentity identity;
    private final String table;
    private final int workerPairs;
    private final QueuePublisher events;
    private final QueuePublisher reports;
    private final Instant podStarted = Instant.now();
    /** When EvalAI took the submission, and when the relay had confirmed its final status. */
    private Instant submitted;
    private Instant ended;

    private RelayedRun(RunningStack stack, Service relay, SubmissionIdentity identity, int workerPairs) {
        this.stack = stack;
        this.relay = relay;
        this.identity = identity;
        this.table = stack.evaluation().leaderboards().get(identity.leaderboard()).submissionsTable();
        this.workerPairs = workerPairs;
        this.events = QueuePublisher.to(stack.sqs(), stack.queueUrl(QueuesConfig.SUBMISSION_EVENTS));
        this.reports = QueuePublisher.to(stack.sqs(), stack.queueUrl(QueuesConfig.PROGRESS_REPORTS));
    }

    /**
     * Starts results-relay (its jar or native executable, {@code -XX:MaxRAM} at its pod's memory limit) on the stack, with its cancel check every {@code cancelCheck}; creates the submission on the
     * stand-in and its record.
     */
    static RelayedRun start(BenchmarkRun.Context context, RunningStack stack, Path workDir, Duration cancelCheck,
            int workerPairs, int expectedRoutes) throws Exception {
        var account = new ServiceAccount("leaderboard", "results-relay");
        var config = new HashMap<>(stack.quarkusConfig(account));
        config.put("relay.cancel-check.every", cancelCheck.toString());
        // Its Lease through the API server, as its ServiceAccount (fabric8 reads the token file, as in a pod).
        var options = new ArrayList<>(List.of(context.podMemoryLimit("results-relay")));
        stack.component(KubernetesComponent.NAME, KubernetesComponent.class).identity(account)
                .forEach((key, value) -> options.add("-D" + key + "=" + value));
        var relay = context.startService("results-relay", workDir, config, options);
        // Submitted once the relay runs: the run's life, from EvalAI's submitted_at on, is all the relay's to count.
        var phase = stack.evaluation().phases().get(Long.toString(PHASE));
        var view = stack.evalAi().createSubmission(
                NewSubmission.of(TEAM, "Team " + TEAM, PHASE, "registry.example/team/agent:1"));
        var identity = new SubmissionIdentity(view.pk(), view.challengePk(), PHASE, TEAM, "Team " + TEAM,
                phase.leaderboard(), phase.track());
        var run = new RelayedRun(stack, relay, identity, workerPairs);
        run.writeRecord(view.submittedAt(), expectedRoutes);
        return run;
    }

    /** What logcopy's progress reports name. */
    SubmissionRef submission() {
        return SubmissionRef.of(identity);
    }

    /** job-launcher's {@code job-started} (the run's pod is Running); returns once the relay recorded RUNNING. */
    void podRunning() throws InterruptedException {
        events.publish(JobStarted.of(identity, 1, jobName(), podStarted, Instant.now()));
        await("RUNNING", () -> "RUNNING".equals(attribute(SubmissionTable.STATUS)));
    }

    /** Hands the relay a report logcopy sent, as the progress-reports queue would. */
    void report(Progress progress) {
        reports.publish(progress);
    }

    /** job-launcher's {@code job-finished} (the Job succeeded); returns once EvalAI confirmed the final status. */
    String jobFinished() throws InterruptedException {
        Instant now = Instant.now();
        events.publish(JobFinished.of(identity, 1, jobName(), JobFinished.Outcome.SUCCEEDED, null, workerPairs,
                podStarted, now, List.of(), now));
        await("the final status confirmed on EvalAI", () -> {
            var sent = record().get(SubmissionTable.FINAL_SENT);
            return sent != null && Boolean.TRUE.equals(sent.bool());
        });
        ended = Instant.now();
        return attribute(SubmissionTable.STATUS);
    }

    /**
     * The calls the stand-in received about this submission, by kind: {@code status} (a read of the submission
     * before its final update), {@code confirm} (a read after it), {@code running}, {@code partial}, {@code final},
     * {@code cancelled-list} (the cancel check's list of the challenge, which holds only this submission here).
     */
    Map<String, Long> calls() throws Exception {
        var json = new ObjectMapper();
        var kinds = new TreeMap<String, Long>();
        boolean finalSent = false;
        for (RecordedCall call : stack.evalAi().calls()) {
            String path = call.path();
            String kind;
            if (call.method().equals("GET") && path.equals("/api/jobs/submission/" + identity.submissionPk())) {
                kind = finalSent ? "confirm" : "status";
            } else if (call.method().equals("GET")
                    && path.startsWith("/api/jobs/challenge/" + identity.challengePk() + "/submission/")) {
                kind = "cancelled-list";
            } else if (!call.body().isBlank()
                    && json.readTree(call.body()).path("submission").asLong() == identity.submissionPk()) {
                kind = path.endsWith("/update_partially_evaluated_submission/") ? "partial"
                        : call.method().equals("PATCH") ? "running" : "final";
                finalSent |= kind.equals("final");
            } else {
                kind = "other";
            }
            kinds.merge(kind, 1L, Long::sum);
        }
        return kinds;
    }

    /** The submission's life (wall time): from its creation on EvalAI to its final status confirmed there. */
    Duration notOver() {
        return Duration.between(submitted, ended);
    }

    /** The relay's own count ({@code relay_evalai_calls_total}, every answer), by kind. */
    Map<String, Long> relayCounted() throws Exception {
        var kinds = new TreeMap<String, Long>();
        Matcher line = CALLS_METRIC.matcher(relay.metricsText());
        while (line.find()) {
            Matcher kind = KIND_LABEL.matcher(line.group(1));
            if (kind.find()) {
                kinds.merge(kind.group(1), (long) Double.parseDouble(line.group(2)), Long::sum);
            }
        }
        return kinds;
    }

    /** The record as ingest-service wrote it (run 1), then job-launcher (its Job created, the pod Pending). */
    private void writeRecord(Instant submittedAt, int expectedRoutes) {
        var item = new HashMap<String, AttributeValue>();
        SubmissionTable.key(identity.teamId(), identity.submissionId())
                .forEach((name, value) -> item.put(name, AttributeValue.fromS(value)));
        Map.of(SubmissionTable.TEAM_NAME, identity.teamName(), SubmissionTable.STATUS, "PENDING",
                SubmissionTable.TRACK_ID, Long.toString(PHASE), SubmissionTable.TRACK_NAME, identity.track(),
                SubmissionTable.CHALLENGE_ID, Long.toString(identity.challengePk()),
                SubmissionTable.LEADERBOARD, identity.leaderboard(), SubmissionTable.INSTANCE_TYPE, "g5.12xlarge",
                SubmissionTable.SUBMITTED_TIME, submittedAt.toString(), SubmissionTable.JOB_NAME, jobName())
                .forEach((name, value) -> item.put(name, AttributeValue.fromS(value)));
        Map.of(SubmissionTable.RUN, 1, SubmissionTable.LAUNCHED_RUN, 1, SubmissionTable.EXPECTED_ROUTES,
                expectedRoutes, SubmissionTable.WORKERS, workerPairs)
                .forEach((name, value) -> item.put(name, AttributeValue.fromN(Integer.toString(value))));
        item.put(SubmissionTable.START_TIME, AttributeValue.fromS(SubmissionTable.NOT_YET));
        item.put(SubmissionTable.END_TIME, AttributeValue.fromS(SubmissionTable.NOT_YET));
        stack.dynamoDb().putItem(r -> r.tableName(table).item(item));
        submitted = submittedAt;
    }

    /** The Job's name as job-launcher gives it ({@code <team>-<track>-<id>-r<run>}). */
    private String jobName() {
        return "team-" + identity.teamId() + "-" + identity.track().toLowerCase(Locale.ROOT).replace('_', '-') + "-"
                + identity.submissionPk() + "-r1";
    }

    private Map<String, AttributeValue> record() {
        var key = new HashMap<String, AttributeValue>();
        SubmissionTable.key(identity.teamId(), identity.submissionId())
                .forEach((name, value) -> key.put(name, AttributeValue.fromS(value)));
        return stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true).key(key)).item();
    }

    private String attribute(String name) {
        var value = record().get(name);
        return value == null ? null : value.s();
    }

    private void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("results-relay did not reach " + what + " within 3 minutes; see "
                        + relay.log());
            }
            Thread.sleep(200);
        }
    }

    @Override
    public void close() {
        relay.close();
    }
}
