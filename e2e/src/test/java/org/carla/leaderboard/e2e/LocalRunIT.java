package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.run.LocalRun;
import org.carla.leaderboard.localstack.run.LocalRunConfig;
import org.carla.leaderboard.localstack.run.LocalSystem;
import org.carla.leaderboard.localstack.run.ProgressBoard;
import org.carla.leaderboard.localstack.run.RunLog;
import org.carla.leaderboard.localstack.run.Scenario;
import org.carla.leaderboard.localstack.run.SubmissionRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The whole system on one machine, as {@code ./run-local.sh --scenario mixed} runs it, with every scenario at once on
 * one stack and one set of services: happy, CARLA crashing mid-run, cancelled on EvalAI, failed then resumed, and a
 * submission whose EvalAI message arrives twice; job-launcher and results-relay are restarted while they run. The
 * tests then check what a participant sees on EvalAI and what an operator finds in DynamoDB, S3, the Kubernetes API
 * and the process table.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);
    private static final Set<String> CONTAINER_LOG_FOLDERS = Set.of("agent/agent1/", "simulator/", "logcopy/");

    private static LocalSystem system;
    private static LocalRun run;
    private static SubmissionRun happy;
    private static SubmissionRun crash;
    private static SubmissionRun cancel;
    private static SubmissionRun resume;
    private static SubmissionRun duplicate;
    private static boolean ended;
    private static boolean noJobs;
    /** Job uids seen in the API per submission id label. */
    private static final Map<String, Set<String>> JOB_UIDS = new ConcurrentHashMap<>();
    private static final Map<String, Long> PIDS_BEFORE = new ConcurrentHashMap<>();
    private static volatile CompletableFuture<Void> restarts;
    private static volatile Instant restartedAt;
    private static volatile Instant restartsDoneAt;

    @BeforeAll
    static void runEveryScenarioAtOnce() throws Exception {
        Path projectDir = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
        Path workDir = Path.of(System.getProperty("e2e.work-dir", "target/e2e-run")).toAbsolutePath()
                .resolve(Long.toString(System.currentTimeMillis()));
        RunLog.toFile(workDir.resolve("local-run.log"));
        system = LocalSystem.start(LocalRunConfig.demo(projectDir, workDir));
        for (String service : LocalRunConfig.SERVICES) {
            PIDS_BEFORE.put(service, system.service(service).pid());
        }
        run = new LocalRun(system);
        var runs = run.submit(List.of(Scenario.HAPPY, Scenario.CRASH, Scenario.CANCEL, Scenario.RESUME,
                Scenario.HAPPY));
        happy = runs.get(0);
        crash = runs.get(1);
        cancel = runs.get(2);
        resume = runs.get(3);
        duplicate = runs.get(4);
        sendTheAnnouncementAgain(duplicate);

        var board = new ProgressBoard(System.out, false);
        ended = run.await(RUN_TIMEOUT, board, LocalRunIT::duringTheRun);
        noJobs = ended && run.awaitNoJobs(Duration.ofSeconds(60));
        if (restarts != null) {
            restarts.join();
        }
        System.out.println(run.table());
        run.runs().forEach(r -> System.out.println("submission " + r.submissionId() + " on EvalAI: "
                + r.view().statusHistory()));
    }

    /** EvalAI sends the same message a second time (SQS delivers at least once, and EvalAI may repeat itself). */
    private static void sendTheAnnouncementAgain(SubmissionRun submission) {
        var view = submission.view();
        String message = "{\"challenge_pk\": " + view.challengePk() + ", \"phase_pk\": " + view.phasePk()
                + ", \"is_static_dataset_code_upload_submission\": false, \"submitted_image_uri\": \""
                + view.submittedImageUri() + "\", \"submission_pk\": " + view.pk() + "}";
        var stack = system.stack();
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl("submissions")).messageBody(message));
    }

    /** Records the Jobs in the API; once a route was reported, restarts job-launcher then results-relay. */
    private static void duringTheRun(List<SubmissionRun> runs) {
        for (var job : system.stack().kubernetes().batch().v1().jobs().inNamespace("submissions").list().getItems()) {
            String submission = job.getMetadata().getAnnotations().get("leaderboard.carla.org/submission-id");
            if (submission == null) {
                submission = job.getMetadata().getLabels().getOrDefault("leaderboard.carla.org/submission-id", "?");
            }
            JOB_UIDS.computeIfAbsent(submission, ignored -> ConcurrentHashMap.newKeySet())
                    .add(job.getMetadata().getUid());
        }
        if (restarts == null && runs.stream().anyMatch(r -> r.routesDone() >= 1)) {
            restartedAt = Instant.now();
            restarts = CompletableFuture.runAsync(() -> {
                system.restart("job-launcher");
                system.restart("results-relay");
                restartsDoneAt = Instant.now();
            });
        }
    }

    @AfterAll
    static void stopEverything() {
        if (system != null) {
            system.close();
        }
    }

    @Test
    @Order(1)
    void everySubmissionReachesItsScenariosStatusOnEvalAi() {
        assertThat(ended).as("every submission ended within %s", RUN_TIMEOUT).isTrue();
        assertThat(happy.finalStatus()).isEqualTo("FINISHED");
        assertThat(crash.finalStatus()).isEqualTo("FINISHED");
        assertThat(cancel.finalStatus()).isEqualTo("CANCELLED");
        assertThat(resume.finalStatus()).isEqualTo("FINISHED");
        assertThat(duplicate.finalStatus()).isEqualTo("FINISHED");
        assertThat(run.runs()).allMatch(SubmissionRun::asExpected);
    }

    @Test
    @Order(2)
    void aFinishedSubmissionShowsItsResultStdoutAndMetadata() throws Exception {
        for (SubmissionRun finished : List.of(happy, crash, resume, duplicate)) {
            var view = finished.view();
            JsonNode result = JSON.readTree(view.result());
            assertThat(result.get(0).path("split").asText()).isEqualTo("leaderboard");
            assertThat(result.get(0).path("accuracies").size()).isEqualTo(15);
            assertThat(finished.routeCompletion()).hasValueSatisfying(v -> assertThat(v).isBetween(0.0, 100.0));
            assertThat(view.stdout()).contains("All 4 route");
            JsonNode metadata = JSON.readTree(view.metadata());
            assertThat(metadata.path("_checkpoint").path("progress").toString()).isEqualTo("[4,4]");
            assertThat(metadata.path("_checkpoint").path("records").size()).isEqualTo(4);
            assertThat(view.completedAt()).isNotNull();
        }
    }

    @Test
    @Order(3)
    void partialResultsArriveWhileTheSubmissionsRun() throws Exception {
        for (SubmissionRun submission : run.runs()) {
            List<RecordedCall> calls = callsAbout(submission);
            int firstPartial = -1;
            int lastPartial = -1;
            int firstFinal = -1;
            int lastFinal = -1;
            for (int i = 0; i < calls.size(); i++) {
                var call = calls.get(i);
                if (call.path().endsWith("/update_partially_evaluated_submission/") && call.status() == 200) {
                    firstPartial = firstPartial < 0 ? i : firstPartial;
                    lastPartial = i;
                }
                if (call.method().equals("PUT") && call.path().endsWith("/update_submission/")) {
                    firstFinal = firstFinal < 0 ? i : firstFinal;
                    lastFinal = i;
                }
            }
            assertThat(firstPartial).as("partial updates of %s", submission.submissionId()).isGreaterThanOrEqualTo(0);
            assertThat(firstFinal).as("final update of %s after a partial one", submission.submissionId())
                    .isGreaterThan(firstPartial);
            assertThat(lastFinal).as("no partial update of %s after its final one", submission.submissionId())
                    .isGreaterThan(lastPartial);
            assertThat(submission.view().statusHistory()).contains("running");
        }
        assertThat(run.runs().stream().flatMap(r -> callsAbout(r).stream())
                .filter(c -> c.path().endsWith("/update_partially_evaluated_submission/"))
                .map(c -> body(c).path("submission_status").asText().toLowerCase()))
                .contains("partially_evaluated");
    }

    @Test
    @Order(4)
    void theDynamoDbRecordHoldsTheFinalStatusAndEveryMetric() {
        for (SubmissionRun submission : run.runs()) {
            var item = record(submission);
            assertThat(item.get("submission_status").s()).isEqualTo(submission.scenario().expectedStatus());
            assertThat(item.get("end_time").s()).isNotEqualTo("-");
            assertThat(item.get("track_name").s()).isEqualTo(submission.track());
            if (submission.finalStatus().equals("FINISHED")) {
                assertThat(Double.parseDouble(item.get("driving_score").n()))
                        .isEqualTo(submission.drivingScore().orElseThrow());
                assertThat(Double.parseDouble(item.get("route_completion").n()))
                        .isEqualTo(submission.routeCompletion().orElseThrow());
                for (String metric : List.of("infraction_penalty", "collisions_pedestrians", "collisions_vehicles",
                        "collisions_layout", "red_light_infractions", "stop_sign_infractions", "off-road_infractions",
                        "route_deviations", "route_timeouts", "agent_blocked", "yield_emergency_vehicle_infractions",
                        "scenario_timeouts", "min_speed_infractions")) {
                    assertThat(item.get(metric).n()).as(metric).isNotNull();
                }
            }
        }
        assertThat(record(resume).get("resumes").n()).isEqualTo("1");
    }

    @Test
    @Order(5)
    void theS3PrefixHoldsStatusFilesMergedResultsEvalAiFilesAndEveryContainersLog() {
        for (SubmissionRun submission : run.runs()) {
            var keys = keys(submission);
            String prefix = submission.submissionId() + "/";
            assertThat(keys).contains(prefix + "agent/agent1/agent_results.json", prefix + "evalai/results.json",
                    prefix + "evalai/stdout.txt", prefix + "evalai/metadata.json",
                    prefix + "agent/agent1/leaderboard.log");
            for (String folder : CONTAINER_LOG_FOLDERS) {
                assertThat(keys).as("a log under %s of %s", folder, prefix)
                        .anyMatch(k -> k.startsWith(prefix + folder) && k.endsWith(".log"));
            }
            if (submission.finalStatus().equals("FINISHED")) {
                assertThat(keys).contains(prefix + "containers-status/agent-1.done",
                        prefix + "containers-status/simulator-1.done", prefix + "containers-status/logcopy.done");
            }
        }
        assertThat(keys(cancel)).contains(cancel.submissionId() + "/containers-status/simulation.cancel");
    }

    @Test
    @Order(5)
    void everyContainerOfEveryJobHasItsLog() throws Exception {
        Path jobs = system.stack().workDir().resolve("kubernetes/jobs");
        for (SubmissionRun submission : run.runs()) {
            List<Path> runJobs;
            try (var folders = Files.list(jobs)) {
                // One Job per run: <team>-<track>-<id>-r<run>.
                runJobs = folders.filter(f -> f.getFileName().toString()
                        .matches(".*-" + submission.submissionId() + "-r[0-9]+")).toList();
            }
            assertThat(runJobs).as("the Jobs of submission %s", submission.submissionId())
                    .hasSize(submission.scenario() == Scenario.RESUME ? 2 : 1);
            for (Path job : runJobs) {
                for (String container : List.of("install-pod-runtime", "private-contents", "simulator-1", "agent-1",
                        "logcopy")) {
                    assertThat(job.resolve("logs/" + container + ".log")).as(job.getFileName() + " " + container)
                            .isNotEmptyFile();
                }
            }
        }
    }

    @Test
    @Order(6)
    void aCarlaCrashIsResumedByThePairAndFinishes() {
        var keys = keys(crash);
        assertThat(keys).contains(crash.submissionId() + "/containers-status/simulator-1.crash0");
        assertThat(crash.routesDone()).isEqualTo(4);
        assertThat(object(crash, "agent/agent1/leaderboard.log")).contains("Preparing RouteScenario_3");
    }

    @Test
    @Order(7)
    void aCancelledSubmissionStopsBeforeItsLastRoute() {
        assertThat(cancel.cancelRequested()).isTrue();
        assertThat(cancel.routesDone()).isLessThan(4);
        assertThat(cancel.view().statusHistory()).contains("cancelled");
    }

    @Test
    @Order(8)
    void aResumedSubmissionFinishesWithoutRerunningItsFinishedRoutes() {
        assertThat(resume.view().statusHistory()).containsSubsequence("failed", "resuming", "finished");
        assertThat(JOB_UIDS.get(resume.submissionId())).as("the first Job and the resumed one").hasSize(2);
        String log = object(resume, "agent/agent1/leaderboard.log");
        assertThat(occurrences(log, "Preparing RouteScenario_0 ")).isEqualTo(1);
        assertThat(occurrences(log, "Preparing RouteScenario_1 ")).isEqualTo(1);
        assertThat(occurrences(log, "Preparing RouteScenario_3 ")).isEqualTo(1);
    }

    @Test
    @Order(9)
    void aRepeatedEvalAiMessageYieldsOneJobAndOneFinalUpdate() {
        assertThat(JOB_UIDS.get(duplicate.submissionId())).hasSize(1);
        assertThat(callsAbout(duplicate)).filteredOn(c -> c.method().equals("PUT")
                && c.path().endsWith("/update_submission/")).hasSize(1);
    }

    @Test
    @Order(10)
    void restartingTheLauncherAndTheRelayMidRunChangesNothing() {
        assertThat(restartedAt).as("the services were restarted during the run").isNotNull();
        assertThat(restartsDoneAt).as("both services were back").isNotNull();
        assertThat(run.runs().stream().flatMap(r -> callsAbout(r).stream()))
                .as("final updates sent by the restarted services")
                .anyMatch(c -> c.method().equals("PUT") && c.path().endsWith("/update_submission/")
                        && c.time().isAfter(restartsDoneAt));
        for (String service : List.of("job-launcher", "results-relay")) {
            assertThat(system.service(service).pid()).isNotEqualTo(PIDS_BEFORE.get(service));
        }
        // Every final update was sent once, nothing was dead-lettered.
        for (SubmissionRun submission : run.runs()) {
            int finals = submission.scenario() == Scenario.RESUME ? 2 : 1;
            assertThat(callsAbout(submission)).as("final updates of %s", submission.submissionId())
                    .filteredOn(c -> c.method().equals("PUT") && c.path().endsWith("/update_submission/"))
                    .hasSize(finals);
        }
        for (String queue : List.of("submissions", "launch-requests", "submission-events")) {
            var attributes = system.stack().sqs().getQueueAttributes(r -> r
                    .queueUrl(system.stack().deadLetterQueueUrl(queue))
                    .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).attributes();
            assertThat(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).as(queue + "-dlq")
                    .isEqualTo("0");
        }
    }

    @Test
    @Order(11)
    void noJobIsLeftInTheApiAndNoProcessOnTheMachine() {
        assertThat(noJobs).as("job-launcher removed every Job").isTrue();
        assertThat(system.stack().kubernetes().batch().v1().jobs().inNamespace("submissions").list().getItems())
                .isEmpty();
        var running = system.stack().processes();
        system.close();
        assertThat(running).noneMatch(ProcessHandle::isAlive);
        assertThat(LocalSystem.leftoverProcesses()).isEmpty();
    }

    private static List<RecordedCall> callsAbout(SubmissionRun submission) {
        var calls = new ArrayList<RecordedCall>();
        for (RecordedCall call : system.stack().evalAi().calls()) {
            if (call.path().endsWith("/submission/" + submission.pk()) || body(call).path("submission").asText()
                    .equals(submission.submissionId())) {
                calls.add(call);
            }
        }
        return calls;
    }

    private static JsonNode body(RecordedCall call) {
        try {
            return call.body() == null || call.body().isBlank() ? JSON.missingNode() : JSON.readTree(call.body());
        } catch (Exception e) {
            return JSON.missingNode();
        }
    }

    private static Map<String, AttributeValue> record(SubmissionRun submission) {
        String table = system.stack().evaluation().leaderboards().get(submission.leaderboard()).submissionsTable();
        return system.stack().dynamoDb().getItem(r -> r.tableName(table).key(Map.of(
                "team_id", AttributeValue.fromS(Long.toString(submission.view().teamId())),
                "submission_id", AttributeValue.fromS(submission.submissionId())))).item();
    }

    private static List<String> keys(SubmissionRun submission) {
        return system.stack().s3().listObjectsV2Paginator(r -> r.bucket(submission.bucket())
                .prefix(submission.submissionId() + "/")).contents().stream().map(S3Object::key).toList();
    }

    private static String object(SubmissionRun submission, String path) {
        ResponseBytes<GetObjectResponse> bytes = system.stack().s3().getObjectAsBytes(r -> r
                .bucket(submission.bucket()).key(submission.submissionId() + "/" + path));
        return bytes.asString(StandardCharsets.UTF_8);
    }

    private static int occurrences(String text, String what) {
        Matcher matcher = Pattern.compile(Pattern.quote(what)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
