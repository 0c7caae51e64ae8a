package org.carla.leaderboard.console;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.Claimer;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerItems;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunImages.ContainerImage;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.KubernetesComponent;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The console's read API as an operator's page uses it, against the local stack: records in DynamoDB Local, files in
 * S3Proxy, Jobs and pods in the Kubernetes API server, queues in ElasticMQ, the EvalAI stand-in.
 */
@QuarkusTest
@ConsoleStack
class ConsoleApiTests {

    static final String TOKEN = "test-operator-token-0123456789";

    @InjectLocalStack
    RunningStack stack;

    static RequestSpecification operator() {
        return given().header("Authorization", "Bearer " + TOKEN);
    }

    private static Instant ago(long minutes) {
        return Instant.now().minus(Duration.ofMinutes(minutes));
    }

    @Test
    void aLookUsesEveryPermissionTheConsolesRoleGrantsAndNoOther() {
        operator().get("/api/submissions").then().statusCode(200);

        var console = ServiceAccount.ofClassPath(getClass().getClassLoader()).orElseThrow();
        assertThat(stack.component(KubernetesComponent.NAME, KubernetesComponent.class).api().unusedGrants(console))
                .as("deploy/'s Role grants what the console never asks: a permission to drop").isEmpty();
    }

    @Test
    void theApiAnswersOnlyAnOperatorWhileThePageItselfLoads() {
        given().get("/api/submissions").then().statusCode(401);
        given().header("Authorization", "Bearer not-the-token-at-all-000").get("/api/submissions").then()
                .statusCode(401);
        given().post("/api/submissions/1/cancel").then().statusCode(401);
        operator().get("/api/operator").then().statusCode(200).body("name", equalTo("tester"))
                .body("refresh_seconds", equalTo(1)).body("window_days", equalTo(7));
        given().get("/").then().statusCode(200).body(containsString("Leaderboard operations"))
                .header("Content-Security-Policy", containsString("script-src 'self'"));
        given().get("/console.js").then().statusCode(200);
    }

    @Test
    void aClaimedRunShowsEveryAttemptAtItsRoutesOnTheLaneOfThePairThatDroveIt() {
        var submission = GivenSubmission.random("Ledger Team " + System.nanoTime()).track("MAP_QUALIFIER", "2076")
                .submitted(ago(60)).launched(ago(55), "ledger-r1").running(ago(50));
        submission.writeTo(stack);
        String partition = RouteLedgerTable.ledgerPartition(GivenSubmission.LEADERBOARD, submission.submissionId, 1);
        var changes = new EntryChanges(Duration.ofMinutes(2), new RetryBudget(2, 2), Clock.systemUTC());
        LedgerEntry first = LedgerEntry.open(new EntryKey("0", 0), "Town12", 1200, 600);
        LedgerEntry claimedFirst = claimed(changes, first, 1);
        LedgerEntry crashed = written(changes.release(claimedFirst, claimedFirst.claim().orElseThrow(),
                new PairPlacement("gpu-node-a", "GPU-1"), AttemptOutcome.AGENT_CRASH, "the evaluator exited with 1"));
        LedgerEntry second = LedgerEntry.open(new EntryKey("1", 0), "Town13", 900, 450);
        LedgerEntry driving = claimed(changes, second, 2);
        for (LedgerEntry entry : List.of(crashed, driving)) {
            stack.dynamoDb().putItem(r -> r.tableName(RouteLedgerTable.DEFAULT_NAME)
                    .item(LedgerItems.entryItem(partition, entry, 1)));
        }

        JsonPath view = operator().queryParam("team", submission.teamId).queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/" + submission.submissionId).then().statusCode(200).extract().jsonPath();

        assertThat(view.getList("problems")).isEmpty();
        assertThat(view.getList("routes.lane")).containsExactly("pod 0 · pair 1", "pod 0 · pair 2");
        assertThat(view.getList("routes.route_id")).containsExactly("0", "1");
        assertThat(view.getList("routes.outcome")).containsExactly("AGENT_CRASH", "CLAIMED");
        assertThat(view.getString("routes[0].reason")).isEqualTo("the evaluator exited with 1");
        assertThat(view.getString("routes[0].node")).isEqualTo("gpu-node-a");
        assertThat(view.getString("routes[0].gpu")).isEqualTo("GPU-1");
        assertThat(view.getString("routes[0].ended")).isNotNull();
        assertThat(view.getString("routes[1].ended")).as("a claim held now").isNull();

        var unclaimed = GivenSubmission.random("Static Team " + System.nanoTime()).submitted(ago(60));
        unclaimed.writeTo(stack);
        assertThat(operator().queryParam("team", unclaimed.teamId).queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/" + unclaimed.submissionId).then().statusCode(200).extract().jsonPath()
                .getList("routes")).as("a track without a schedule has no ledger to read").isEmpty();
    }

    private static LedgerEntry claimed(EntryChanges changes, LedgerEntry entry, int pair) {
        return written(changes.claim(entry, new Claimer("ledger-r1-pod", 0, pair), "token-" + pair));
    }

    private static LedgerEntry written(Change change) {
        return ((Change.Written) change).entry();
    }

    @Test
    void theListShowsTheRecentSubmissionsWithTheirRunJobPodTimesAndGpuHours() {
        String team = "List Team " + System.nanoTime();
        var running = GivenSubmission.random(team).submitted(ago(180)).launched(ago(170), "list-sensors-r1")
                .running(ago(150)).progress(ago(1), 3, 20, 42.5);
        var pending = GivenSubmission.random(team).submitted(ago(40)).launched(ago(30), "list-pending-r1");
        var finished = GivenSubmission.random(team).submitted(ago(3 * 24 * 60)).launched(ago(3 * 24 * 60 - 5), "f-r1")
                .running(ago(3 * 24 * 60 - 10)).ended("FINISHED", ago(2 * 24 * 60), true, 7.5);
        var old = GivenSubmission.random(team).submitted(ago(40 * 24 * 60)).ended("FAILED", ago(30 * 24 * 60), true, 1);
        for (var submission : List.of(running, pending, finished, old)) {
            submission.writeTo(stack);
        }
        GivenCluster.job(stack, "list-sensors-r1", running.submissionId, 1, null, null);
        GivenCluster.pod(stack, "list-sensors-r1", running.submissionId, "Running", ago(150), 1,
                List.of(GivenCluster.running("simulator-1", 0, ago(150)), GivenCluster.running("agent-1", 0, ago(150))));
        GivenCluster.job(stack, "list-pending-r1", pending.submissionId, 1, null, null);
        GivenCluster.pod(stack, "list-pending-r1", pending.submissionId, "Pending", null, 1, List.of());

        JsonPath list = operator().queryParam("team", team).get("/api/submissions").then().statusCode(200).extract()
                .jsonPath();

        assertThat(list.getList("submissions.submission_id", String.class)).containsExactlyInAnyOrder(
                running.submissionId, pending.submissionId, finished.submissionId);
        Map<String, Object> row = row(list, running.submissionId);
        assertThat(row).containsEntry("status", "RUNNING").containsEntry("team_name", team)
                .containsEntry("track", "SENSORS").containsEntry("run", 1).containsEntry("routes_done", 3)
                .containsEntry("routes_total", 20).containsEntry("job_name", "list-sensors-r1")
                .containsEntry("job_state", "active").containsEntry("pod_phase", "Running");
        assertThat(((Number) row.get("driving_score")).doubleValue()).isEqualTo(42.5);
        assertThat(((Number) row.get("waiting_seconds")).longValue()).isEqualTo(20 * 60);
        assertThat(((Number) row.get("running_seconds")).longValue()).isBetween(150 * 60L, 152 * 60L);
        // g5.12xlarge: 4 GPUs for 2.5 h so far.
        assertThat(((Number) row.get("gpu_hours")).doubleValue()).isBetween(10.0, 10.2);
        assertThat(row.get("stuck")).isNull();
        Map<String, Object> waiting = row(list, pending.submissionId);
        assertThat(waiting).containsEntry("status", "PENDING").containsEntry("pod_phase", "Pending");
        assertThat(((Number) waiting.get("waiting_seconds")).longValue()).isBetween(30 * 60L, 32 * 60L);
        assertThat(waiting.get("running_seconds")).isNull();
        assertThat(((Number) row(list, finished.submissionId).get("gpu_hours")).doubleValue()).isEqualTo(7.5);
    }

    @Test
    void theListFiltersByStatusTrackAndTeam() {
        String team = "Filter Team " + System.nanoTime();
        var sensors = GivenSubmission.random(team + " A").submitted(ago(10));
        var map = GivenSubmission.random(team + " B").track("MAP", "2078").submitted(ago(20))
                .launched(ago(15), "map-r1");
        sensors.writeTo(stack);
        map.writeTo(stack);

        assertThat(ids(Map.of("team", team))).containsExactlyInAnyOrder(sensors.submissionId, map.submissionId);
        assertThat(ids(Map.of("team", team, "status", "pending"))).containsExactly(map.submissionId);
        assertThat(ids(Map.of("team", team, "track", "SENSORS"))).containsExactly(sensors.submissionId);
        assertThat(ids(Map.of("team", sensors.teamId))).containsExactly(sensors.submissionId);
        assertThat(ids(Map.of("team", team, "status", "FAILED"))).isEmpty();
    }

    @Test
    void oneSubmissionShowsItsRunsPairsLogsEvalAiUpdatesAndAccuracies() {
        String team = "Detail <Team> \"; rm -rf / \u0000 \uFFFE";
        var submission = GivenSubmission.random(team).submitted(ago(100)).launched(ago(95), "detail-r1")
                .running(ago(90)).progress(ago(1), 7, 20, 12.25)
                .text(SubmissionTable.FAILURE_REASON, "The simulator crashed twice");
        submission.writeTo(stack);
        for (String file : List.of(StatusFiles.crash(StatusFiles.Role.AGENT, 1, 0),
                StatusFiles.crash(StatusFiles.Role.SIMULATOR, 1, 0), StatusFiles.done(StatusFiles.Role.AGENT, 2),
                StatusFiles.done(StatusFiles.Role.SIMULATOR, 2))) {
            submission.upload(stack, LogsLayout.statusFile(file), "");
        }
        String log = IntStream.rangeClosed(1, 600).mapToObj(i -> "route step " + i + " of the evaluator's output")
                .collect(Collectors.joining("\n", "", "\n"));
        submission.upload(stack, LogsLayout.agentLog(1), log);
        submission.upload(stack, LogsLayout.LOGCOPY_LOG, "merged 7 routes\n");
        submission.upload(stack, LogsLayout.evalAiFile(EvalAiFiles.RESULTS), "[{\"split\": \"leaderboard\", "
                + "\"show_to_participant\": true, \"accuracies\": {\"Driving score\": 12.25, \"Route completion\": 30.5}}]");
        GivenCluster.job(stack, "detail-r1", submission.submissionId, 1, null, null);
        GivenCluster.pod(stack, "detail-r1", submission.submissionId, "Running", ago(90), 1,
                List.of(GivenCluster.running("simulator-1", 1, ago(20)), GivenCluster.running("agent-1", 1, ago(20)),
                        GivenCluster.backingOff("simulator-2", 0)));

        JsonPath view = operator().queryParam("team", submission.teamId).queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/" + submission.submissionId).then().statusCode(200).extract().jsonPath();

        assertThat(view.getString("summary.team_name")).isEqualTo(team);
        assertThat(view.getList("history.status")).containsExactly("SUBMITTED", "PENDING", "RUNNING");
        assertThat(view.getList("history.by")).containsExactly("ingest-service", "job-launcher", "results-relay");
        assertThat(view.getList("eval_ai_updates.status")).containsExactly("RUNNING");
        assertThat(view.getInt("runs[0].run")).isEqualTo(1);
        assertThat(view.getString("runs[0].pending_at")).isNotNull();
        assertThat(view.getString("runs[0].running_at")).isNotNull();
        assertThat(view.getString("runs[0].ended_at")).isNull();
        assertThat(view.getString("pairs[0].state")).isEqualTo("running");
        assertThat(view.getInt("pairs[0].attempt")).isEqualTo(2);
        assertThat(view.getInt("pairs[0].crashes")).isEqualTo(2);
        assertThat(view.getString("pairs[0].agent")).isEqualTo("running, 1 restarts");
        assertThat(view.getString("pairs[1].state")).isEqualTo("done");
        assertThat(view.getList("pairs[0].events.file")).containsExactlyInAnyOrder("agent-1.crash0",
                "simulator-1.crash0");
        Map<String, String> logs = view.getList("logs", Map.class).stream().collect(Collectors.toMap(
                entry -> (String) entry.get("container"), entry -> (String) entry.get("tail")));
        assertThat(logs).containsOnlyKeys("agent-1", "logcopy");
        assertThat(logs.get("agent-1").lines().toList()).hasSize(40).startsWith("route step 561 of the evaluator's output")
                .endsWith("route step 600 of the evaluator's output");
        assertThat(logs.get("logcopy")).isEqualTo("merged 7 routes");
        assertThat(view.getDouble("accuracies.driving_score")).isEqualTo(12.25);
        assertThat(view.getDouble("accuracies.route_completion")).isEqualTo(30.5);
        assertThat(view.getString("failure_reason")).isEqualTo("The simulator crashed twice");
        assertThat(view.getString("eval_ai_status")).isEqualTo("unknown");
        assertThat(view.getString("pod.phase")).isEqualTo("Running");
        assertThat(view.getString("cancel")).isNull();
        assertThat(view.getString("resume")).contains("only a failed submission can be resumed");
    }

    @Test
    void aRunOfTwoPodsShowsEachPodsPairsAndLogsFromItsOwnFolderAndEveryPodsGpuTime() {
        var submission = GivenSubmission.random("Two Pods").track("MAP", "2078").submitted(ago(100))
                .launched(ago(95), "pods-r1").running(ago(90)).progress(ago(1), 3, 4, 20)
                .text(SubmissionTable.INSTANCE_TYPE, "g5.xlarge").number(SubmissionTable.WORKERS, 1)
                .number(SubmissionTable.PODS, 2);
        submission.writeTo(stack);
        submission.upload(stack, "pod-0/" + LogsLayout.statusFile(StatusFiles.done(StatusFiles.Role.AGENT, 1)), "");
        submission.upload(stack, "pod-0/" + LogsLayout.statusFile(StatusFiles.done(StatusFiles.Role.SIMULATOR, 1)), "");
        submission.upload(stack, "pod-1/" + LogsLayout.statusFile(StatusFiles.crash(StatusFiles.Role.AGENT, 1, 0)), "");
        submission.upload(stack, "pod-0/" + LogsLayout.agentLog(1), "pod 0 drove its last route\n");
        submission.upload(stack, "pod-1/" + LogsLayout.agentLog(1), "pod 1 drives\n");
        submission.upload(stack, LogsLayout.agentLog(1), "a key at the root no pod of this run writes\n");
        GivenCluster.job(stack, "pods-r1", submission.submissionId, 1, null, null);
        // Index 0 ran from 90 to 30 minutes ago; index 1 runs since 60 minutes ago: 1 h + 1 h on one GPU each.
        GivenCluster.indexedPod(stack, "pods-r1", "pods-r1-0-abcde", submission.submissionId, 0, "Succeeded", ago(90),
                List.of(GivenCluster.ended("simulator-1", 0, ago(90), ago(31)),
                        GivenCluster.ended("agent-1", 0, ago(90), ago(30))));
        GivenCluster.indexedPod(stack, "pods-r1", "pods-r1-1-fghij", submission.submissionId, 1, "Running", ago(60),
                List.of(GivenCluster.running("simulator-1", 0, ago(60)), GivenCluster.running("agent-1", 1, ago(5))));

        JsonPath view = operator().queryParam("team", submission.teamId).queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/" + submission.submissionId).then().statusCode(200).extract().jsonPath();

        assertThat(view.getList("pairs.pod", Integer.class)).containsExactly(0, 1);
        assertThat(view.getList("pairs.state")).containsExactly("done", "running");
        assertThat(view.getString("pairs[1].agent")).isEqualTo("running, 1 restarts");
        assertThat(view.getList("pairs[1].events.file")).containsExactly("agent-1.crash0");
        assertThat(view.getList("logs.pod", Integer.class)).containsExactly(0, 1);
        assertThat(view.getList("logs.tail")).containsExactly("pod 0 drove its last route", "pod 1 drives");
        assertThat(view.getList("pods.index", Integer.class)).containsExactly(0, 1);
        assertThat(view.getDouble("summary.gpu_hours")).isBetween(2.0, 2.05);
    }

    @Test
    void oneSubmissionShowsWhatItsCurrentRunRanByDigestAndVersionAndNothingOfAnEarlierRun() {
        var resumed = GivenSubmission.random("What Ran").submitted(ago(100)).number(SubmissionTable.RUN, 2)
                .launched(ago(50), "ran-r2").running(ago(45))
                .attribute(SubmissionTable.RUN_IMAGES, new RunImages(2, List.of(
                        new ContainerImage("ran-r2-a", "init", "leaderboard:2.0", digest("leaderboard", 'a')),
                        new ContainerImage("ran-r2-a", "agent-1", "team/agent:v3", digest("team/agent", 'b')),
                        new ContainerImage("ran-r2-b", "agent-1", "team/agent:v3", digest("team/agent", 'c'))))
                        .attribute())
                .attribute(SubmissionTable.RUN_VERSIONS, versions(1, "0.9.14").attribute());
        resumed.writeTo(stack);
        // Before its final report, the run's versions are only in the control object its init wrote.
        resumed.upload(stack, SubmissionLayout.runVersionsPath(2), versions(2, "0.9.15").json());

        JsonPath view = detail(resumed);

        assertThat(view.getInt("what_ran.run")).isEqualTo(2);
        assertThat(view.getList("what_ran.images.pod")).containsExactly("ran-r2-a", "ran-r2-a", "ran-r2-b");
        assertThat(view.getList("what_ran.images.digest")).containsExactly(digest("leaderboard", 'a'),
                digest("team/agent", 'b'), digest("team/agent", 'c'));
        assertThat(view.getList("what_ran.images.image")).containsExactly("leaderboard:2.0", "team/agent:v3",
                "team/agent:v3");
        assertThat(view.getMap("what_ran.versions")).containsExactly(Map.entry("scenario_runner", "0.9.13"),
                Map.entry("carla_server", "0.9.15"));

        // A new run whose pod has not started shows neither the last run's images nor its versions.
        var waiting = GivenSubmission.random("Not Yet").submitted(ago(100)).number(SubmissionTable.RUN, 3)
                .launched(ago(1), "ran-r3")
                .attribute(SubmissionTable.RUN_IMAGES, new RunImages(2, List.of(new ContainerImage("ran-r2-a",
                        "agent-1", "team/agent:v3", digest("team/agent", 'b')))).attribute())
                .attribute(SubmissionTable.RUN_VERSIONS, versions(2, "0.9.15").attribute());
        waiting.writeTo(stack);
        assertThat(detail(waiting).getString("what_ran")).isNull();
    }

    private static String digest(String repository, char hex) {
        return repository + "@sha256:" + String.valueOf(hex).repeat(64);
    }

    private static RunVersions versions(int run, String carlaServer) {
        return new RunVersions(run, Optional.empty(), Optional.of("0.9.13"), Optional.empty(),
                Optional.of(carlaServer));
    }

    private static JsonPath detail(GivenSubmission submission) {
        return operator().queryParam("team", submission.teamId).queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/" + submission.submissionId).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void aSubmissionIsNamedByNumbersAndAConfiguredLeaderboardOnly() {
        operator().get("/api/submissions/1;rm%20-rf").then().statusCode(400).body("error", containsString("number"));
        operator().queryParam("team", "1").queryParam("leaderboard", "../etc")
                .get("/api/submissions/5").then().statusCode(400).body("error", containsString("no leaderboard"));
        operator().queryParam("team", "1").queryParam("leaderboard", "leaderboard-20")
                .get("/api/submissions/987654321012").then().statusCode(404);
        operator().get("/api/submissions/987654321013").then().statusCode(404)
                .body("error", equalTo("EvalAI knows no submission 987654321013"));
    }

    @Test
    void aLiveQueuesOldestMessageShowsItsAgeFromCloudWatch() {
        // A queue no other test here writes to: CloudWatch's one-minute maximum of a queue purged this minute would
        // still hold the age of what the purge removed.
        String url = stack.queueUrl("submission-events");
        assertThat(stack.sqs().getQueueAttributes(r -> r.queueUrl(url)
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                        QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))
                .attributes().values()).containsOnly("0");
        Instant sent = Instant.now();
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("{\"waiting\": true}"));

        // The local stack's CloudWatch measures every 5 s; ops-console reads it at most once a second here.
        await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
            JsonPath backend = operator().get("/api/backend").then().statusCode(200).extract().jsonPath();
            Map<String, Object> submissions = backend.getMap("queues.find { it.name == 'submission-events' }");
            assertThat(submissions.get("oldest_message_age")).isNotNull();
            assertThat(((Number) submissions.get("oldest_message_age")).doubleValue()).isGreaterThanOrEqualTo(5.0)
                    .isLessThanOrEqualTo(Duration.between(sent, Instant.now()).toSeconds() + 1.0);
            // The datapoint's time is its minute's start, as CloudWatch dates a period.
            assertThat(Instant.parse((String) submissions.get("oldest_message_age_at")))
                    .isAfterOrEqualTo(sent.truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
            assertThat(backend.getList("problems", String.class)).noneMatch(p -> p.contains("CloudWatch"));
        });
        stack.sqs().purgeQueue(r -> r.queueUrl(url));
    }

    @Test
    void theBackendShowsQueuesDeadLettersStuckSubmissionsGpuPodsAndDays() {
        stack.sqs().purgeQueue(r -> r.queueUrl(stack.queueUrl("launch-requests")));
        stack.sqs().purgeQueue(r -> r.queueUrl(stack.deadLetterQueueUrl("submission-events")));
        for (int i = 0; i < 3; i++) {
            stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl("launch-requests")).messageBody("{}"));
        }
        deadLetter("submission-events", "malformed-missing-field", "submission.team_name is missing");
        deadLetter("submission-events", "malformed-missing-field", "run is missing");
        deadLetter("submission-events", "evalai-rejected", "EvalAI refused with 400");
        String team = "Stuck Team " + System.nanoTime();
        var noJob = GivenSubmission.random(team).submitted(ago(25));
        var unconfirmed = GivenSubmission.random(team).submitted(ago(80)).launched(ago(75), "u-r1").running(ago(70))
                .ended("FINISHED", ago(12), false, 2.0);
        noJob.writeTo(stack);
        unconfirmed.writeTo(stack);

        JsonPath backend = operator().get("/api/backend").then().statusCode(200).extract().jsonPath();

        Map<String, Object> launch = backend.getMap("queues.find { it.name == 'launch-requests' }");
        assertThat(((Number) launch.get("visible")).longValue()).isEqualTo(3);
        Map<String, Object> events = backend.getMap("queues.find { it.name == 'submission-events' }");
        assertThat(((Number) events.get("dead_letters")).longValue()).isEqualTo(3);
        assertThat((Map<String, Object>) events.get("reasons")).containsEntry("malformed-missing-field", 2)
                .containsEntry("evalai-rejected", 1);
        assertThat(events.get("oldest_dead_letter")).isNotNull();
        assertThat(backend.getList("queues.name")).containsExactly("submissions", "launch-requests",
                "submission-events", "progress-reports");
        Map<String, Object> stuckNoJob = backend.getMap("stuck.find { it.submission_id == '" + noJob.submissionId + "' }");
        assertThat(stuckNoJob).containsEntry("stuck", "unlaunched");
        assertThat((String) stuckNoJob.get("stuck_reason")).contains("publish the run's launch request again");
        assertThat(backend.getMap("stuck.find { it.submission_id == '" + unconfirmed.submissionId + "' }"))
                .containsEntry("stuck", "unconfirmed-final");
        assertThat(backend.getList("days.day")).contains(ago(12).toString().substring(0, 10));
        assertThat(backend.getInt("gpu_pods.running")).isGreaterThanOrEqualTo(0);

        operator().get("/api/stuck").then().statusCode(200)
                .body("find { it.submission_id == '" + noJob.submissionId + "' }.stuck", equalTo("unlaunched"));
        JsonPath letters = operator().get("/api/dead-letters/submission-events").then().statusCode(200).extract()
                .jsonPath();
        assertThat(letters.getList("reason")).containsExactlyInAnyOrder("malformed-missing-field",
                "malformed-missing-field", "evalai-rejected");
        assertThat(letters.getList("source_queue")).containsOnly("submission-events");
        // Looking hid nothing: every message is still there for a redrive.
        operator().get("/api/dead-letters/submission-events").then().body("size()", equalTo(3));
        operator().get("/api/dead-letters/no-such-queue").then().statusCode(409);
    }

    @Test
    void gpuPodsCountRunningAndPendingPodsWithTheirGpus() {
        String team = "Gpu Team " + System.nanoTime();
        var a = GivenSubmission.random(team);
        int running = operator().get("/api/backend").then().extract().path("gpu_pods.running");
        int gpusPending = operator().get("/api/backend").then().extract().path("gpu_pods.gpus_pending");
        GivenCluster.pod(stack, "gpu-" + a.submissionId + "-r1", a.submissionId, "Running", ago(5), 1, List.of());
        GivenCluster.pod(stack, "gpu-" + a.submissionId + "-r2", a.submissionId, "Pending", null, 1, List.of());

        // The console's pod informer gets the two pods in well under a second on an idle machine; many on a busy one.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonPath backend = operator().get("/api/backend").then().extract().jsonPath();
            assertThat(backend.getInt("gpu_pods.running")).isEqualTo(running + 1);
            assertThat(backend.getInt("gpu_pods.gpus_pending")).isEqualTo(gpusPending + 2);
        });
    }

    private void deadLetter(String queue, String reason, String error) {
        stack.sqs().sendMessage(r -> r.queueUrl(stack.deadLetterQueueUrl(queue)).messageBody("{\"broken\":true}")
                .messageAttributes(Map.of("dead-letter-reason", text(reason), "dead-letter-error", text(error),
                        "source-queue", text(queue), "receive-count", text("1"))));
    }

    static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
    }

    private static List<String> ids(Map<String, String> filters) {
        return operator().queryParams(filters).get("/api/submissions").then().statusCode(200).extract().jsonPath()
                .getList("submissions.submission_id", String.class);
    }

    private static Map<String, Object> row(JsonPath list, String submissionId) {
        return list.getMap("submissions.find { it.submission_id == '" + submissionId + "' }");
    }
}
