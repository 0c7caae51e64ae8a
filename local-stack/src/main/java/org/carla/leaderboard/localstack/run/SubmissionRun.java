package org.carla.leaderboard.localstack.run;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.evalai.SubmissionView;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One submission of the local run as its participant and the host see it on EvalAI: its scenario, what EvalAI shows
 * now (status, routes done from the merged checkpoint in {@code metadata}, the driving score in {@code result}), and
 * the host's part of the scenario (cancel once a route is reported, or while the pod waits for capacity; resume once
 * it failed).
 */
public final class SubmissionRun {

    static final Set<String> FINAL = Set.of("finished", "failed", "cancelled");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final long pk;
    private final Scenario scenario;
    private final String track;
    private final String leaderboard;
    private final String bucket;
    private final String ledgerTable;
    private final List<String> routeIds;
    private volatile SubmissionView view;
    private volatile boolean cancelRequested;
    private volatile boolean nodeLost;
    private volatile Instant interruptedAt;
    private volatile boolean resumeRequested;
    private volatile boolean finalUpdateReceived;

    SubmissionRun(SubmissionView created, Scenario scenario, TrackSpec track) {
        this.pk = created.pk();
        this.view = created;
        this.scenario = scenario;
        this.track = track.track();
        this.leaderboard = track.leaderboard();
        this.bucket = track.bucket();
        this.ledgerTable = track.ledgerTable();
        this.routeIds = LocalRunConfig.routeIds(track.leaderboardVersion(), track.routes());
    }

    /**
     * Reads what EvalAI shows now and plays the host's part of the scenario; a resume, which EvalAI announces on its
     * queue, waits while that queue is down ({@code queueUp} false).
     */
    void observe(EvalAiStandIn evalAi, boolean queueUp) {
        read(evalAi);
        Instant runStart = view.rerunResumedAt() != null ? view.rerunResumedAt() : Instant.EPOCH;
        finalUpdateReceived = evalAi.calls().stream()
                .anyMatch(call -> call.time().isAfter(runStart) && isFinalUpdateOf(call, pk));
        String status = status();
        if (scenario == Scenario.CANCEL && !cancelRequested && !FINAL.contains(status) && routesDone() >= 1) {
            cancelRequested = true;
            view = evalAi.cancel(pk);
        }
        if (scenario == Scenario.RESUME && !resumeRequested && status.equals("failed") && queueUp) {
            resumeRequested = true;
            view = evalAi.resume(pk);
        }
    }

    /** What EvalAI shows now, read again without playing the host's part ({@link #observe} plays it). */
    public SubmissionRun read(EvalAiStandIn evalAi) {
        view = evalAi.submission(pk).orElseThrow();
        return this;
    }

    /** NODE_LOST: its first route is reported (so S3 has it) and its node was not lost yet. */
    boolean losesItsNodeNow() {
        return scenario == Scenario.NODE_LOST && !nodeLost && !FINAL.contains(status()) && routesDone() >= 1;
    }

    void nodeLost() {
        nodeLost = true;
    }

    /** Whether the node of its pod was lost (NODE_LOST). */
    public boolean lostItsNode() {
        return nodeLost;
    }

    /** The route ledger of its first run (a track whose pairs claim their routes), as an operator reads it. */
    public List<LedgerEntry> ledger(DynamoDbClient dynamoDb) {
        return RunLedger.entries(dynamoDb, ledgerTable, leaderboard, submissionId(), 1);
    }

    /** SPOT: its node was not reclaimed yet and it has not ended (the ledger says when: {@link LocalRun}). */
    boolean awaitsItsInterruption() {
        return scenario == Scenario.SPOT && interruptedAt == null && !FINAL.contains(status());
    }

    void interrupted(Instant at) {
        interruptedAt = at;
    }

    /** When the node of its pod was reclaimed (SPOT), if it was. */
    public Optional<Instant> interruptedAt() {
        return Optional.ofNullable(interruptedAt);
    }

    /**
     * The cluster shows this submission's pod waiting for a GPU node: the host of a CANCEL_PENDING submission cancels
     * it now, before it ever runs.
     */
    void podWaits(EvalAiStandIn evalAi) {
        if (scenario == Scenario.CANCEL_PENDING && !cancelRequested && !FINAL.contains(status())) {
            cancelRequested = true;
            view = evalAi.cancel(pk);
        }
    }

    /**
     * True once EvalAI shows a final status, the backend's final update for the current run has reached EvalAI (a
     * participant's cancellation alone is not the end: the backend still stops the run and reports it), and the
     * scenario does not act on it any more.
     */
    public boolean ended() {
        boolean awaitingResume = scenario == Scenario.RESUME && !resumeRequested && status().equals("failed");
        return FINAL.contains(status()) && finalUpdateReceived && !awaitingResume;
    }

    /** A successful {@code PUT .../update_submission/} (EvalAI's final update) about submission {@code pk}. */
    static boolean isFinalUpdateOf(RecordedCall call, long pk) {
        if (!call.method().equals("PUT") || !call.path().endsWith("/update_submission/") || call.status() != 200
                || call.body() == null) {
            return false;
        }
        return parse(call.body()).map(body -> body.path("submission").asText())
                .or(() -> formField(call.body(), "submission"))
                .filter(value -> value.equals(Long.toString(pk))).isPresent();
    }

    private static Optional<String> formField(String body, String name) {
        for (String pair : body.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).equals(name)) {
                return Optional.of(java.net.URLDecoder.decode(pair.substring(equals + 1),
                        java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }

    /** The scenario's expectation met: EvalAI's final status, and for RESUME, reached after a resume. */
    public boolean asExpected() {
        return ended() && finalStatus().equals(scenario.expectedStatus())
                && (scenario != Scenario.RESUME || resumeRequested);
    }

    public long pk() {
        return pk;
    }

    public String submissionId() {
        return Long.toString(pk);
    }

    public Scenario scenario() {
        return scenario;
    }

    public String track() {
        return track;
    }

    public String leaderboard() {
        return leaderboard;
    }

    public String bucket() {
        return bucket;
    }

    /** The ids of its track's routes, in the order of the routes file its Leaderboard image holds. */
    public List<String> routeIds() {
        return routeIds;
    }

    public String s3Prefix() {
        return "s3://" + bucket + "/" + submissionId() + "/";
    }

    public SubmissionView view() {
        return view;
    }

    public boolean cancelRequested() {
        return cancelRequested;
    }

    public boolean resumeRequested() {
        return resumeRequested;
    }

    /** EvalAI's status, lower case as EvalAI stores it. */
    public String status() {
        return view.status() == null ? "" : view.status().toLowerCase(Locale.ROOT);
    }

    /** EvalAI's status as the table shows it: FINISHED, FAILED, CANCELLED, or the running one. */
    public String finalStatus() {
        return status().toUpperCase(Locale.ROOT);
    }

    /** Routes done according to the last merged checkpoint EvalAI received ({@code progress[0]}), 0 before any. */
    public int routesDone() {
        return progress(0);
    }

    /** Routes expected according to the last merged checkpoint EvalAI received, 0 before any. */
    public int routesTotal() {
        return progress(1);
    }

    private int progress(int index) {
        JsonNode progress = parse(view.metadata()).map(m -> m.path("_checkpoint").path("progress"))
                .orElse(null);
        return progress != null && progress.isArray() && progress.size() > index ? progress.get(index).asInt() : 0;
    }

    /** A metric of the last result EvalAI received (e.g. "Driving score"). */
    public Optional<Double> metric(String label) {
        return parse(view.result()).map(result -> result.isArray() && result.size() > 0
                ? result.get(0).path("accuracies").path(label) : null)
                .filter(JsonNode::isNumber).map(JsonNode::asDouble);
    }

    public Optional<Double> drivingScore() {
        return metric("Driving score");
    }

    public Optional<Double> routeCompletion() {
        return metric("Route completion");
    }

    private static Optional<JsonNode> parse(String json) {
        if (json == null || json.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(json));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    /** The progress line: status, routes done / total, driving score, the scenario. */
    public String progressLine() {
        String routes = routesTotal() == 0 ? "-/-" : routesDone() + "/" + routesTotal();
        String score = drivingScore().map(s -> String.format(Locale.ROOT, "%.2f", s)).orElse("-");
        return String.format(Locale.ROOT, "  submission %-5d %-18s %-20s routes %-5s driving score %-7s (%s%s)", pk,
                track, status().isEmpty() ? "submitted" : status(), routes, score, scenario.label(),
                cancelRequested ? ", cancel sent" : resumeRequested ? ", resumed" : "");
    }
}
