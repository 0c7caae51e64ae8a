package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.ledger.Attempt;
import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.ClaimPolicy;
import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.pod.JobLabels;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.run.LocalRun;
import org.carla.leaderboard.localstack.run.LocalRunConfig;
import org.carla.leaderboard.localstack.run.LocalSystem;
import org.carla.leaderboard.localstack.run.Packaging;
import org.carla.leaderboard.localstack.run.ProgressBoard;
import org.carla.leaderboard.localstack.run.RunLog;
import org.carla.leaderboard.localstack.run.Scenario;
import org.carla.leaderboard.localstack.run.SubmissionPods;
import org.carla.leaderboard.localstack.run.SubmissionRun;
import org.carla.leaderboard.messaging.QueuePublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The whole system on one machine, as {@code ./run-local.sh --scenario all} runs it, with every scenario at once on one
 * stack and one set of services: happy, CARLA crashing mid-run, cancelled on EvalAI, failed then resumed (and its
 * first run's end reported again during the second), a team name EvalAI allows and little else does (its EvalAI
 * message arriving twice), an agent SIGKILLed mid-run, three hostile participants forging files, a track whose two
 * pairs claim uneven routes from the route ledger, and — made once the
 * others' pods run, with no GPU node left — one that waits for a node longer than its deadline and one cancelled while
 * it waits. job-launcher and results-relay are restarted while they run; a finished submission's launch request is
 * delivered again after its run ended. The tests then check what a participant sees on EvalAI and what an operator
 * finds in DynamoDB, S3, the Kubernetes API, the services' metrics, the files and the process table.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(15);
    private static final Set<String> CONTAINER_LOG_FOLDERS = Set.of("agent/agent1/", "simulator/", "logcopy/");
    private static final String NAMESPACE = "submissions";
    /** The time of a java.util.logging record, on the line before its message. */
    private static final Pattern LOG_TIME = Pattern.compile("\\w{3} \\d+, \\d{4} (\\d+:\\d{2}:\\d{2} [AP]M) ");

    private static LocalSystem system;
    private static Path runLog;
    private static LocalRun run;
    private static final Map<Scenario, SubmissionRun> BY_SCENARIO = new HashMap<>();
    private static boolean ended;
    private static boolean noJobs;
    /** Job uids seen in the API per submission id label. */
    private static final Map<String, Set<String>> JOB_UIDS = new ConcurrentHashMap<>();
    /** Every Job seen, as first seen, by name. */
    private static final Map<String, Job> JOBS = new ConcurrentHashMap<>();
    /** Every submission pod seen, by name: as first seen, whether the scheduler ever found it no node, when placed. */
    private static final Map<String, PodSeen> PODS = new ConcurrentHashMap<>();
    private static final Map<String, Long> PIDS_BEFORE = new ConcurrentHashMap<>();
    private static volatile CompletableFuture<Void> restarts;
    private static volatile Instant restartedAt;
    private static volatile Instant restartsDoneAt;
    private static volatile Instant earlierRunReportedAgainAt;
    private static volatile Instant launchRequestedAgainAt;
    private static volatile Map<String, String> objectsBeforeTheLateLaunchRequest;
    private static volatile double refusedBeforeTheLateLaunchRequest;

    record PodSeen(String submissionId, String job, Instant created, boolean unschedulable, Optional<Instant> placedAt) {
    }

    @BeforeAll
    static void runEveryScenarioAtOnce() throws Exception {
        Path projectDir = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
        Path workDir = Path.of(System.getProperty("e2e.work-dir", "target/e2e-run")).toAbsolutePath()
                .resolve(Long.toString(System.currentTimeMillis()));
        runLog = RunLog.toFile(workDir.resolve("local-run.log"));
        system = LocalSystem.start(LocalRunConfig.demo(projectDir, workDir, Packaging.fromSystemProperty()));
        for (String service : LocalRunConfig.SERVICES) {
            PIDS_BEFORE.put(service, system.service(service).pid());
        }
        run = new LocalRun(system);
        var plan = List.of(Scenario.values());
        var runs = run.submit(plan);
        for (int i = 0; i < plan.size(); i++) {
            BY_SCENARIO.put(plan.get(i), runs.get(i));
        }
        sendTheAnnouncementAgain(submission(Scenario.TEAM_NAME));

        var board = new ProgressBoard(System.out, false);
        ended = run.await(RUN_TIMEOUT, board, LocalRunIT::duringTheRun);
        noJobs = ended && run.awaitNoJobs(Duration.ofSeconds(60));
        if (restarts != null) {
            restarts.join();
        }
        System.out.println(run.table());
        run.runs().forEach(r -> System.out.println("submission " + r.submissionId() + " (" + r.scenario().label()
                + ") on EvalAI: " + r.view().statusHistory() + "; stderr: " + r.view().stderr()));
    }

    private static SubmissionRun submission(Scenario scenario) {
        return BY_SCENARIO.get(scenario);
    }

    /**
     * The evaluator's line as it prepares the route at {@code position} of the submission's routes file: its route
     * id, not its position (the local Leaderboard 1.0 image numbers its routes from 1).
     */
    private static String prepared(SubmissionRun submission, int position) {
        return "Preparing RouteScenario_" + submission.routeIds().get(position) + " ";
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

    /**
     * Records the Jobs and pods in the API; once a route was reported, restarts job-launcher then results-relay; once
     * they are back, delivers the resumed submission's first-run end again during its second run, and the happy
     * submission's launch request again after its run ended.
     */
    private static void duringTheRun(List<SubmissionRun> runs) {
        var jobs = system.stack().kubernetes().batch().v1().jobs().inNamespace(NAMESPACE).list().getItems();
        for (var job : jobs) {
            JOB_UIDS.computeIfAbsent(submissionOf(job), ignored -> ConcurrentHashMap.newKeySet())
                    .add(job.getMetadata().getUid());
            JOBS.putIfAbsent(job.getMetadata().getName(), job);
        }
        var pods = SubmissionPods.of(system.stack().kubernetes(), NAMESPACE);
        for (SubmissionRun submission : runs) {
            for (var pod : pods.of(submission.submissionId())) {
                PODS.merge(pod.name(), new PodSeen(submission.submissionId(), pod.job(), pod.created(),
                        pod.waitsForCapacity(), pod.placedAt()), (was, now) -> new PodSeen(was.submissionId(),
                                was.job(), was.created(), was.unschedulable() || now.unschedulable(),
                                was.placedAt().or(now::placedAt)));
            }
        }
        if (restarts == null && runs.stream().anyMatch(r -> r.routesDone() >= 1)) {
            restartedAt = Instant.now();
            restarts = CompletableFuture.runAsync(() -> {
                system.restart("job-launcher");
                system.restart("results-relay");
                restartsDoneAt = Instant.now();
            });
        }
        if (restartsDoneAt == null) {
            return;
        }
        SubmissionRun resume = submission(Scenario.RESUME);
        if (earlierRunReportedAgainAt == null && resume.resumeRequested() && !resume.ended()
                && Set.of("running", "partially_evaluated").contains(resume.status())) {
            reportTheFirstRunsEndAgain(resume);
        }
        SubmissionRun happy = submission(Scenario.HAPPY);
        if (launchRequestedAgainAt == null && happy.ended()
                && jobs.stream().noneMatch(job -> submissionOf(job).equals(happy.submissionId()))) {
            requestTheLaunchAgain(happy);
        }
    }

    private static String submissionOf(Job job) {
        String submission = job.getMetadata().getAnnotations().get("leaderboard.carla.org/submission-id");
        return submission != null ? submission : job.getMetadata().getLabels().getOrDefault(JobLabels.SUBMISSION_ID, "?");
    }

    private static SubmissionIdentity identity(SubmissionRun submission) {
        var view = submission.view();
        return new SubmissionIdentity(view.pk(), view.challengePk(), view.phasePk(), view.teamId(), view.teamName(),
                submission.leaderboard(), submission.track());
    }

    /** Run 1's {@code job-finished} (FAILED) arrives again while run 2 runs, as SQS may deliver it late. */
    private static void reportTheFirstRunsEndAgain(SubmissionRun resume) {
        String firstJob = jobsOf(resume).stream().filter(job -> "1".equals(job.getMetadata().getLabels()
                .get(JobLabels.RUN))).map(job -> job.getMetadata().getName()).findFirst()
                .orElse("job-of-run-1-never-seen");
        Instant now = Instant.now();
        var event = JobFinished.of(identity(resume), 1, firstJob, JobFinished.Outcome.FAILED, "PodFailurePolicy",
                1, resume.view().submittedAt(), now, List.of(new JobFinished.ContainerOutcome("agent-1", 2, 1,
                        "Error", now), new JobFinished.ContainerOutcome("logcopy", 0, 3, "Error", now)), now);
        QueuePublisher.to(system.stack().sqs(), system.stack().queueUrl("submission-events")).publish(event);
        earlierRunReportedAgainAt = now;
    }

    /** The happy submission's launch request of run 1 arrives again after its run ended and its Job is gone. */
    private static void requestTheLaunchAgain(SubmissionRun happy) {
        objectsBeforeTheLateLaunchRequest = objects(happy);
        refusedBeforeTheLateLaunchRequest = ServiceMetrics.sum(system, "job-launcher",
                "leaderboard_launcher_requests_refused_total", Map.of());
        var track = new TrackCatalog(system.stack().evaluation()).forPhase(happy.view().phasePk()).orElseThrow();
        var request = LaunchRequest.of(identity(happy), 1, happy.view().submittedImageUri(), false, track,
                happy.view().submittedAt());
        QueuePublisher.to(system.stack().sqs(), system.stack().queueUrl("launch-requests")).publish(request);
        launchRequestedAgainAt = Instant.now();
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
        assertThat(BY_SCENARIO).as("submissions made").hasSize(Scenario.values().length);
        for (Scenario scenario : BY_SCENARIO.keySet()) {
            assertThat(submission(scenario).finalStatus()).as(() -> scenario.label() + "; its Jobs in the run log:\n"
                    + jobLines(submission(scenario))).isEqualTo(scenario.expectedStatus());
        }
        assertThat(run.runs()).allMatch(SubmissionRun::asExpected);
    }

    @Test
    @Order(2)
    void aFinishedSubmissionShowsItsResultStdoutAndMetadata() throws Exception {
        for (SubmissionRun finished : finishing()) {
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
            // What ran, exactly: every container of the pod by digest, as job-launcher recorded it from the pod status.
            var ran = RunImages.of(record(finished).get(SubmissionTable.RUN_IMAGES)).orElseThrow();
            assertThat(ran.containers()).extracting(RunImages.ContainerImage::container)
                    .contains("simulator-1", "agent-1", "logcopy");
            assertThat(ran.containers()).allSatisfy(image -> assertThat(image.imageId())
                    .matches("[^@\\s]+@sha256:[0-9a-f]{64}"));
            JsonNode images = metadata.path("images");
            assertThat(images.path("run").asInt()).isEqualTo(ran.run());
            assertThat(images.path("containers").size()).isEqualTo(ran.containers().size());
            for (int i = 0; i < ran.containers().size(); i++) {
                assertThat(images.path("containers").get(i).path("image_id").asText())
                        .isEqualTo(ran.containers().get(i).imageId());
            }
            // What it drove with, as its init read it in the Leaderboard image: in the metadata and the record.
            int run = Integer.parseInt(record(finished).get(SubmissionTable.RUN).n());
            var track = new TrackCatalog(system.stack().evaluation()).forPhase(finished.view().phasePk())
                    .orElseThrow();
            var expected = LocalRunConfig.imageVersions(finished.leaderboard(), track.leaderboardVersion(),
                    track.simulatorImage(), run);
            assertThat(expected.carlaServer()).as("the CARLA server's, read by carla-version").isPresent();
            JsonNode versions = metadata.path("versions");
            assertThat(versions.path("run").asInt()).isEqualTo(run);
            expected.known().forEach((name, value) -> assertThat(versions.path(name).asText()).as(name)
                    .isEqualTo(value));
            assertThat(record(finished).get(SubmissionTable.RUN_VERSIONS)).isEqualTo(expected.attribute());
        }
    }

    @Test
    @Order(3)
    void partialResultsArriveWhileTheSubmissionsRun() throws Exception {
        for (SubmissionRun submission : run.runs()) {
            if (!submission.scenario().podRuns() || submission.scenario() == Scenario.FORGED_STATUS) {
                continue; // never ran, or stopped at its first route's end by its own forged cancel
            }
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
                if (isFinalUpdate(call)) {
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
            assertThat(item.get("submission_status").s()).as(submission.scenario().label())
                    .isEqualTo(submission.scenario().expectedStatus());
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
        assertThat(record(submission(Scenario.RESUME)).get("resumes").n()).isEqualTo("1");
    }

    @Test
    @Order(5)
    void theS3PrefixHoldsStatusFilesMergedResultsEvalAiFilesAndEveryContainersLog() {
        for (SubmissionRun submission : run.runs()) {
            if (!submission.scenario().podRuns() || submission.scenario().hostile()) {
                continue; // the hostile ones have tests of their own
            }
            var keys = keys(submission);
            // A run of several pods: each pod's files under its own folder.
            List<String> prefixes = submission.scenario() == Scenario.PODS
                    ? IntStream.range(0, Scenario.PODS_OF_RUN).mapToObj(i -> submission.submissionId() + "/pod-" + i
                            + "/").toList()
                    : List.of(submission.submissionId() + "/");
            for (String prefix : prefixes) {
                assertThat(keys).contains(prefix + "evalai/results.json", prefix + "evalai/stdout.txt",
                        prefix + "evalai/metadata.json", prefix + "agent/agent1/leaderboard.log");
                if (submission.scenario().claimsRoutes()) {
                    // A checkpoint per claim, the merged results the ledger's.
                    assertThat(keys).anyMatch(key -> key.startsWith(prefix + "agent/agent1/claim-"))
                            .contains(prefix + "agent_results.json", prefix + "claims/agent-1.json");
                } else {
                    assertThat(keys).contains(prefix + "agent/agent1/agent_results.json");
                }
                if (twoPairs(submission)) {
                    assertThat(keys).anyMatch(key -> key.startsWith(prefix + "agent/agent2/claim-"));
                }
                for (String folder : CONTAINER_LOG_FOLDERS) {
                    assertThat(keys).as("a log under %s of %s", folder, prefix)
                            .anyMatch(k -> k.startsWith(prefix + folder) && k.endsWith(".log"));
                }
                if (submission.finalStatus().equals("FINISHED")) {
                    assertThat(keys).contains(prefix + "containers-status/agent-1.done",
                            prefix + "containers-status/simulator-1.done", prefix + "containers-status/logcopy.done");
                }
            }
        }
        var cancel = submission(Scenario.CANCEL);
        assertThat(keys(cancel)).contains(cancel.submissionId() + "/containers-status/simulation.cancel");
    }

    @Test
    @Order(5)
    void everyContainerOfEveryJobHasItsLog() throws Exception {
        for (SubmissionRun submission : run.runs()) {
            List<Path> runJobs = jobFolders(submission);
            if (submission.scenario() == Scenario.UNPULLABLE) {
                assertThat(runJobs).allSatisfy(job -> assertThat(job.resolve("logs/agent-1.log"))
                        .as("the agent whose image could not be pulled never ran").doesNotExist());
                continue;
            }
            if (!submission.scenario().podRuns()) {
                for (Path job : runJobs) {
                    try (Stream<Path> logs = Files.exists(job.resolve("logs")) ? Files.list(job.resolve("logs"))
                            : Stream.empty()) {
                        assertThat(logs.filter(log -> log.toFile().length() > 0).toList())
                                .as("container logs of %s, whose pod never ran", job.getFileName()).isEmpty();
                    }
                }
                continue;
            }
            assertThat(runJobs).as("the Jobs of submission %s", submission.submissionId())
                    .hasSize(submission.scenario() == Scenario.RESUME ? 2 : 1);
            for (Path job : runJobs) {
                for (String container : List.of("install-pod-runtime", "carla-version", "private-contents",
                        "simulator-1", "agent-1", "logcopy")) {
                    assertThat(job.resolve("logs/" + container + ".log")).as(job.getFileName() + " " + container)
                            .isNotEmptyFile();
                }
            }
        }
    }

    @Test
    @Order(6)
    void theContainersOfAPodRunAsTheirImagesUsersNotAsRoot() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "the local Job runner switches users only when it runs as root (as here and in CI)");
        Path job = jobFolders(submission(Scenario.HAPPY)).get(0);
        Path simulatorLog = inLogsVolume(job, "simulator/simulator1.log");
        Path agentLog = inLogsVolume(job, "agent/agent1/leaderboard.log");
        Path logcopyLog = inLogsVolume(job, "logcopy/logcopy.log");
        int simulator = owner(simulatorLog);
        int agent = owner(agentLog);
        int logcopy = owner(logcopyLog);
        assertThat(List.of(simulator, agent, logcopy)).as("owners of the simulator's, the agent's and logcopy's logs")
                .doesNotContain(0).doesNotHaveDuplicates();
    }

    @Test
    @Order(7)
    void aLeaderboardOneAndATwoTrackEachFinishDrivingTheirRoutesById() {
        var finished = run.runs().stream().filter(r -> r.finalStatus().equals("FINISHED")).toList();
        var catalog = new TrackCatalog(system.stack().evaluation());
        for (LeaderboardVersion version : LeaderboardVersion.values()) {
            var onIt = finished.stream().filter(r -> catalog.forPhase(r.view().phasePk()).orElseThrow()
                    .leaderboardVersion() == version).toList();
            assertThat(onIt).as("finished submissions of a Leaderboard %s track", version).isNotEmpty();
            for (SubmissionRun submission : onIt) {
                // What its evaluators printed, in every pod: S3's copy may lack a lost pod's last lines (NODE_LOST);
                // every pair's, where pairs claim their routes (CLAIMED, SPOT).
                String log = containerLog(submission, "agent-1")
                        + (twoPairs(submission) ? containerLog(submission, "agent-2") : "");
                for (int position = 0; position < submission.routeIds().size(); position++) {
                    assertThat(log).as("submission %s", submission.submissionId())
                            .contains(prepared(submission, position));
                }
            }
        }
        assertThat(finished).filteredOn(r -> r.leaderboard().equals("leaderboard-10")).first()
                .extracting(SubmissionRun::routeIds).as("the local 1.0 image's ids are not the routes' positions")
                .isEqualTo(List.of("1", "2", "3", "4"));
    }

    @Test
    @Order(7)
    void aCarlaCrashIsResumedByThePairAndFinishes() {
        var crash = submission(Scenario.CRASH);
        assertThat(keys(crash)).contains(crash.submissionId() + "/containers-status/simulator-1.crash0");
        assertThat(crash.routesDone()).isEqualTo(4);
        assertThat(object(crash, "agent/agent1/leaderboard.log")).contains(prepared(crash, 3));
    }

    @Test
    @Order(8)
    void anAgentKilledWithoutAGoodbyeResumesFromItsCheckpoint() {
        var killed = submission(Scenario.KILLED);
        assertThat(keys(killed)).as("SIGKILL leaves no crash file")
                .noneMatch(key -> key.contains("/containers-status/agent-1.crash"));
        String log = object(killed, "agent/agent1/leaderboard.log");
        assertThat(occurrences(log, "# evaluator started at ")).as("the killed attempt and the one after").isEqualTo(2);
        assertThat(occurrences(log, prepared(killed, 0))).isEqualTo(1);
        assertThat(occurrences(log, prepared(killed, 1))).isEqualTo(1);
        // The killed attempt's last lines may die in the pipe with it; the route it was killed in is driven again.
        assertThat(occurrences(log, prepared(killed, Scenario.KILLED_AT_ROUTE))).isBetween(1, 2);
        assertThat(occurrences(log, prepared(killed, 3))).isEqualTo(1);
        assertThat(killed.routesDone()).isEqualTo(4);
    }

    @Test
    @Order(8)
    void aClaimedRunDrivesEachRouteOnceTheLongestFirstAndEndsBeforeItsStaticSplitWould() {
        var claimed = submission(Scenario.CLAIMED);
        List<LedgerEntry> entries = claimed.ledger(system.stack().dynamoDb());

        assertThat(claimed.routesDone()).isEqualTo(4);
        assertThat(entries).hasSize(4).allSatisfy(entry -> {
            assertThat(entry.state()).isEqualTo(EntryState.DONE);
            assertThat(entry.attempts()).as("each route driven once").singleElement()
                    .satisfies(attempt -> assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.DONE));
        });
        List<Attempt> attempts = entries.stream().map(entry -> entry.attempts().get(0))
                .sorted(Comparator.comparing(Attempt::started)).toList();
        assertThat(entries.stream().filter(entry -> attempts.subList(0, 2).contains(entry.attempts().get(0)))
                .map(entry -> entry.key().routeId())).as("the two long routes claimed first, one per pair")
                .containsExactlyInAnyOrderElementsOf(claimed.routeIds().subList(0, 2));
        // The run's end against the seeds' static split of the same routes over the same two pairs, each pair driving
        // its share one route after another in the times these routes took.
        Map<String, Integer> share = ClaimPolicy.share(entries.stream().map(LedgerEntry::key).toList(), 2);
        double[] staticPairs = new double[2];
        entries.forEach(entry -> staticPairs[share.get(entry.key().routeId())] += entry.attempts().get(0)
                .durationSeconds());
        double staticEnd = Math.max(staticPairs[0], staticPairs[1]);
        double claimedEnd = Duration.between(attempts.get(0).started(), attempts.stream().map(Attempt::ended)
                .max(Comparator.naturalOrder()).orElseThrow()).toMillis() / 1000.0;
        assertThat(claimedEnd).as("claimed routes end before the static split would (%.1f s)", staticEnd)
                .isLessThan(staticEnd);
    }

    @Test
    @Order(8)
    void aRunOfTwoPodsClaimsFromOneLedgerEachRouteOnceEachPodUnderItsOwnFolder() {
        var spread = submission(Scenario.PODS);
        assertThat(spread.finalStatus()).isEqualTo("FINISHED");
        assertThat(spread.routesDone()).isEqualTo(4);
        assertThat(jobsOf(spread)).singleElement().satisfies(job -> {
            assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
            assertThat(job.getSpec().getCompletions()).isEqualTo(Scenario.PODS_OF_RUN);
            assertThat(job.getSpec().getParallelism()).isEqualTo(Scenario.PODS_OF_RUN);
        });
        assertThat(podsOf(spread)).as("a pod per completion index, none replaced").hasSize(Scenario.PODS_OF_RUN);

        List<LedgerEntry> entries = spread.ledger(system.stack().dynamoDb());
        assertThat(entries).hasSize(4).allSatisfy(entry -> {
            assertThat(entry.state()).isEqualTo(EntryState.DONE);
            assertThat(entry.attempts()).as("each route driven once").singleElement()
                    .satisfies(attempt -> assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.DONE));
        });
        assertThat(entries.stream().map(entry -> entry.attempts().get(0).index()).distinct())
                .as("both pods drove").containsExactlyInAnyOrder(0, 1);
        assertThat(keys(spread)).as("each pod's files under its own folder, the control objects beside them")
                .allMatch(key -> key.startsWith(spread.submissionId() + "/pod-0/")
                        || key.startsWith(spread.submissionId() + "/pod-1/")
                        || key.startsWith(spread.submissionId() + "/control/"));
    }

    @Test
    @Order(8)
    void aSpotInterruptionCostsOnlyTheRoutesInFlightAndNoRoutesBudget() {
        var spot = submission(Scenario.SPOT);
        Instant interrupted = spot.interruptedAt().orElseThrow(() -> new AssertionError(
                "its node was never reclaimed: no route was filed while another drove"));
        assertThat(jobsOf(spot)).as("one Job: the controller replaced its pod").hasSize(1);
        assertThat(podsOf(spot)).as("the interrupted pod and its replacement").hasSizeGreaterThanOrEqualTo(2);
        assertThat(spot.routesDone()).isEqualTo(4);

        List<LedgerEntry> entries = spot.ledger(system.stack().dynamoDb());
        assertThat(entries).hasSize(4).allSatisfy(entry -> {
            assertThat(entry.state()).isEqualTo(EntryState.DONE);
            assertThat(entry.attempts()).as("%s: driven to its end once", entry.key())
                    .filteredOn(attempt -> attempt.outcome() == AttemptOutcome.DONE).hasSize(1);
            assertThat(entry.attempts().get(entry.attempts().size() - 1).outcome()).isEqualTo(AttemptOutcome.DONE);
            assertThat(entry.tries()).as("%s: the interruption charged no route's budget", entry.key()).isZero();
        });
        List<Attempt> lost = entries.stream().flatMap(entry -> entry.attempts().stream())
                .filter(attempt -> attempt.outcome() != AttemptOutcome.DONE).toList();
        assertThat(lost).as("the routes in flight when the node went").isNotEmpty().allSatisfy(attempt -> {
            assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.INFRASTRUCTURE);
            // Given back by logcopy on SIGTERM, within the grace period: no lease had to lapse.
            assertThat(attempt.reason()).contains("SIGTERM").doesNotContain("lease lapsed");
            assertThat(attempt.ended()).isBetween(interrupted, interrupted.plusSeconds(30));
        });
        String interruptedPod = lost.get(0).pod();
        assertThat(entries).as("a route filed before the interruption was not driven again")
                .anySatisfy(entry -> assertThat(entry.attempts()).singleElement().satisfies(attempt -> {
                    assertThat(attempt.pod()).isEqualTo(interruptedPod);
                    assertThat(attempt.ended()).isBefore(interrupted);
                }));
        assertThat(entries).as("the routes given back, driven by the replacement pod")
                .filteredOn(entry -> entry.attempts().size() > 1)
                .isNotEmpty()
                .allSatisfy(entry -> assertThat(entry.attempts().get(entry.attempts().size() - 1).pod())
                        .isNotEqualTo(interruptedPod));
    }

    @Test
    @Order(8)
    void aPodLostWithItsNodeIsReplacedAndResumesFromWhatItsRunHasInS3() {
        var lost = submission(Scenario.NODE_LOST);
        assertThat(lost.lostItsNode()).isTrue();
        assertThat(jobsOf(lost)).as("one Job: the controller replaced its pod").hasSize(1);
        assertThat(podsOf(lost)).as("the lost pod and its replacement").hasSizeGreaterThanOrEqualTo(2);
        // What each of them ran, by digest (the replacement may have pulled other bytes under a tag), in the record.
        var ran = RunImages.of(record(lost).get(SubmissionTable.RUN_IMAGES)).orElseThrow();
        assertThat(ran.pods()).as("the lost pod's images and its replacement's").hasSizeGreaterThanOrEqualTo(2)
                .doesNotHaveDuplicates().isSubsetOf(PODS.keySet());
        assertThat(occurrences(object(lost, "agent/agent1/leaderboard.log"), "# evaluator started at "))
                .as("the lost pod's attempt, the replacement's").isEqualTo(2);
        // The routes driven, from the agent's container log of both pods: the lost pod's last lines may not be in S3
        // (logcopy sends a small log again at most once per upload interval). The MAP track's routes file numbers its
        // routes 1 to 4 (routes are passed by id); the node is lost once a route is reported, while the second drives.
        String driven = containerLog(lost, "agent-1");
        assertThat(occurrences(driven, "Preparing RouteScenario_1 ")).as("a finished route is never driven again")
                .isEqualTo(1);
        assertThat(occurrences(driven, "Preparing RouteScenario_4 ")).isEqualTo(1);
        assertThat(lost.routesDone()).isEqualTo(4);
        int reported = 0;
        for (RecordedCall call : callsAbout(lost)) {
            if (call.path().endsWith("/update_partially_evaluated_submission/") && call.status() == 200) {
                int routes = routes(body(call));
                assertThat(routes).as("EvalAI's progress never goes back").isGreaterThanOrEqualTo(reported);
                reported = routes;
            }
        }
    }

    @Test
    @Order(8)
    void anImageThatCannotBePulledEndsItsRunFailedNamingTheImageAndNeverStarts() {
        var unpullable = submission(Scenario.UNPULLABLE);
        assertThat(unpullable.finalStatus()).isEqualTo("FAILED");
        assertThat(unpullable.view().stderr()).contains("your image " + unpullable.view().submittedImageUri()
                + " could not be pulled: failed to pull and unpack image").contains("not found");
        assertThat(unpullable.view().statusHistory()).doesNotContain("running");
        assertThat(record(unpullable).get("start_time").s()).as("no start: it never ran").isEqualTo("-");
    }

    @Test
    @Order(9)
    void aCancelledSubmissionStopsBeforeItsLastRoute() {
        var cancel = submission(Scenario.CANCEL);
        assertThat(cancel.cancelRequested()).isTrue();
        assertThat(cancel.routesDone()).isLessThan(4);
        assertThat(cancel.view().statusHistory()).contains("cancelled");
    }

    @Test
    @Order(10)
    void aResumedSubmissionFinishesWithoutRerunningItsFinishedRoutes() {
        var resume = submission(Scenario.RESUME);
        assertThat(resume.view().statusHistory()).containsSubsequence("failed", "resuming", "finished");
        assertThat(JOB_UIDS.get(resume.submissionId())).as("the first Job and the resumed one").hasSize(2);
        String log = object(resume, "agent/agent1/leaderboard.log");
        assertThat(occurrences(log, prepared(resume, 0))).isEqualTo(1);
        assertThat(occurrences(log, prepared(resume, 1))).isEqualTo(1);
        assertThat(occurrences(log, prepared(resume, 3))).isEqualTo(1);
        // Run 1's pairs spent the crash budget: logcopy ended the pod with its restart-limit code, and the Job's
        // podFailurePolicy failed the run, which the participant is told with the crashed containers' logs.
        assertThat(callsAbout(resume)).filteredOn(c -> isFinalUpdate(c) && status(c).equals("failed"))
                .isNotEmpty().allSatisfy(failed -> assertThat(body(failed).path("stderr").asText())
                        .contains("crashed and were restarted more often than the track allows (PodFailurePolicy)")
                        .contains("=== agent-1").doesNotContain("=== logcopy"));
    }

    @Test
    @Order(11)
    void theFirstRunsEndReportedAgainDuringTheSecondRunChangesNothing() {
        var resume = submission(Scenario.RESUME);
        assertThat(earlierRunReportedAgainAt).as("run 1's job-finished was sent again while run 2 ran").isNotNull();
        var history = resume.view().statusHistory();
        assertThat(history.subList(history.lastIndexOf("resuming"), history.size())).as("after the resume")
                .doesNotContain("failed").endsWith("finished");
        assertThat(callsAbout(resume).stream().filter(LocalRunIT::isFinalUpdate)
                .filter(c -> c.time().isAfter(earlierRunReportedAgainAt)).map(c -> status(c)).toList())
                .as("final updates after run 1's end came again").containsExactly("finished");
        var item = record(resume);
        assertThat(item.get("run").n()).isEqualTo("2");
        assertThat(item.get("submission_status").s()).isEqualTo("FINISHED");
        assertThat(ServiceMetrics.sum(system, "results-relay", "relay_events_dropped_total",
                Map.of("type", JobFinished.TYPE, "reason", "other-run"))).as("run 1's end dropped as another run's")
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    @Order(12)
    void aRepeatedEvalAiMessageYieldsOneJobAndOneFinalUpdate() {
        var repeated = submission(Scenario.TEAM_NAME);
        assertThat(JOB_UIDS.get(repeated.submissionId())).hasSize(1);
        assertThat(callsAbout(repeated)).filteredOn(LocalRunIT::isFinalUpdate).hasSize(1);
    }

    @Test
    @Order(13)
    void aTeamNameEvalAiAllowsTravelsAsDataFromEvalAiToTheRecordAndTheJob() throws Exception {
        var team = submission(Scenario.TEAM_NAME);
        String name = team.view().teamName();
        assertThat(name).contains("\u0000", "\uFFFE", "\uFFFF", "\uD800", "$(touch team-name-ran)");
        assertThat(record(team).get("team_name").s()).isEqualTo(name);
        Job job = jobsOf(team).get(0);
        var identity = EventCodec.mapper().readValue(job.getMetadata().getAnnotations()
                .get("leaderboard.carla.org/submission"), SubmissionIdentity.class);
        assertThat(identity.teamName()).isEqualTo(name);
        var containers = new ArrayList<>(job.getSpec().getTemplate().getSpec().getContainers());
        containers.addAll(job.getSpec().getTemplate().getSpec().getInitContainers());
        assertThat(containers.stream().flatMap(c -> c.getEnv() == null ? Stream.empty() : c.getEnv().stream())
                .map(EnvVar::getValue).filter(v -> v != null))
                .as("no container's environment holds the team name").noneMatch(v -> v.contains("(team-name)")
                        || v.contains("\uFFFE") || v.contains("touch team-name-ran"));
        try (Stream<Path> files = Files.walk(system.config().workDir())) {
            assertThat(files.filter(f -> f.getFileName().toString().equals("team-name-ran")).toList())
                    .as("the name's $(...) never ran in a shell").isEmpty();
        }
    }

    @Test
    @Order(14)
    void aSubmissionWaitingForAGpuNodeLongerThanItsDeadlineStillFinishes() {
        var capacity = submission(Scenario.CAPACITY);
        var pods = podsOf(capacity);
        assertThat(pods).as("its pod, waiting for a node").isNotEmpty().allMatch(PodSeen::unschedulable);
        PodSeen pod = pods.get(0);
        assertThat(pod.placedAt()).as("its pod got a node").isPresent();
        long deadline = LocalRunConfig.CAPACITY_DEADLINE.toSeconds();
        assertThat(Duration.between(pod.created(), pod.placedAt().orElseThrow()).toSeconds())
                .as("seconds it waited for a node (its deadline: %d s)", deadline).isGreaterThan(deadline);
        assertThat(capacity.finalStatus()).as(() -> "its Jobs in the run log:\n" + jobLines(capacity))
                .isEqualTo("FINISHED");
        assertThat(capacity.routesDone()).isEqualTo(4);
        // Running means running: EvalAI was told only once the pod had its node, and the record starts then.
        Instant placed = pod.placedAt().orElseThrow();
        assertThat(callsAbout(capacity).stream().filter(c -> c.method().equals("PATCH"))
                .filter(c -> "running".equals(status(c))).map(RecordedCall::time))
                .as("EvalAI's 'running'").isNotEmpty()
                .allMatch(time -> !time.isBefore(placed.truncatedTo(ChronoUnit.SECONDS)));
        assertThat(Instant.parse(record(capacity).get("start_time").s())).isEqualTo(placed);
    }

    @Test
    @Order(15)
    void aCancelWhileThePodWaitsForANodeEndsCancelledOnceWithoutThePodEverRunning() {
        var pending = submission(Scenario.CANCEL_PENDING);
        assertThat(pending.cancelRequested()).isTrue();
        assertThat(podsOf(pending)).as("its pod, seen waiting for a node").isNotEmpty()
                .allMatch(PodSeen::unschedulable).allMatch(pod -> pod.placedAt().isEmpty());
        assertThat(pending.view().statusHistory()).doesNotContain("running").endsWith("cancelled");
        assertThat(callsAbout(pending)).filteredOn(LocalRunIT::isFinalUpdate).hasSize(1)
                .allMatch(call -> "cancelled".equals(status(call)));
        assertThat(record(pending).get("submission_status").s()).isEqualTo("CANCELLED");
        assertThat(keys(pending)).as("nothing of a pod that never ran").noneMatch(key -> key.contains("/agent/"));
        assertThat(jobsOf(pending)).as("its Job, deleted while its pod waited").hasSize(1);
    }

    @Test
    @Order(16)
    void aLaunchRequestDeliveredAgainAfterItsRunEndedIsRefusedAndChangesNothing() {
        var happy = submission(Scenario.HAPPY);
        assertThat(launchRequestedAgainAt).as("the late launch request was sent").isNotNull();
        await("the launcher's refusal of the late request").atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> ServiceMetrics.sum(system, "job-launcher", "leaderboard_launcher_requests_refused_total",
                        Map.of()) > refusedBeforeTheLateLaunchRequest);
        assertThat(JOB_UIDS.get(happy.submissionId())).as("Jobs of the submission").hasSize(1);
        assertThat(system.stack().kubernetes().batch().v1().jobs().inNamespace(NAMESPACE)
                .withLabel(JobLabels.SUBMISSION_ID, happy.submissionId()).list().getItems()).isEmpty();
        assertThat(objects(happy)).as("its S3 objects, untouched").isEqualTo(objectsBeforeTheLateLaunchRequest);
        assertThat(callsAbout(happy)).filteredOn(LocalRunIT::isFinalUpdate).hasSize(1);
    }

    @Test
    @Order(17)
    void forgedStatusFilesAndAForgedCancelEndFailedWithTheReason() {
        var forged = submission(Scenario.FORGED_STATUS);
        String prefix = forged.submissionId() + "/containers-status/";
        // logcopy uploads the pairs' forged done files as any file of the volume, never a file at one of its own
        // names it did not write: the forged cancel reaches the relay as logcopy's last report, not as a file. The
        // agent's done file is forged before the cancel, so logcopy's last upload always finds it.
        assertThat(keys(forged)).as("the forged done file reached S3").contains(prefix + "agent-1.done")
                .as("files at logcopy's names that logcopy did not write")
                .doesNotContain(prefix + "simulation.cancel", prefix + "logcopy.done");
        assertThat(record(forged).get("last_ending").s()).as("logcopy's last report").isEqualTo("UNREQUESTED_CANCEL");
        assertThat(forged.finalStatus()).as("neither CANCELLED nor FINISHED").isEqualTo("FAILED");
        assertThat(forged.view().stderr()).as("why").contains("simulation.cancel").contains("not requested")
                .doesNotContain("CompletionsReached");
        assertThat(callsAbout(forged)).filteredOn(LocalRunIT::isFinalUpdate).hasSize(1);
        assertThat(record(forged).get("failure_reason").s()).isNotBlank().isNotEqualTo("-");
    }

    @Test
    @Order(18)
    void nanScoresEndFailedWithTheReasonAndLinksInTheVolumeAreNotWrittenThrough() throws Exception {
        var forged = submission(Scenario.FORGED_SCORES);
        assertThat(forged.finalStatus()).isEqualTo("FAILED");
        assertThat(forged.view().stderr()).as("why").contains("route records refused, not counted").contains(" is nan, not a number");
        assertThat(callsAbout(forged)).filteredOn(LocalRunIT::isFinalUpdate).hasSize(1);
        Path outside = Scenario.outsideDir(system.config().knobsDir(), forged.submissionId());
        assertThat(outside.resolve("bait.txt")).as("the file logcopy.done pointed at")
                .hasContent("a file outside the logs volume; it must keep this text");
        try (Stream<Path> written = Files.list(outside.resolve("evalai-outside"))) {
            assertThat(written.toList()).as("the folder evalai/ pointed at").isEmpty();
        }
        // logcopy kept going past the 10 MB line and the overlong key: the last route's lines reached S3.
        var log = system.stack().s3().headObject(r -> r.bucket(forged.bucket())
                .key(forged.submissionId() + "/agent/agent1/leaderboard.log"));
        assertThat(log.contentLength()).isGreaterThan(10L * 1024 * 1024);
        assertThat(object(forged, "agent/agent1/leaderboard.log")).contains(prepared(forged, 3));
        assertThat(forged.view().result()).doesNotContain("NaN").doesNotContain("Infinity");
    }

    @Test
    @Order(19)
    void aCheckpointLinkedOutOfTheVolumeIsNeverReadAndAFifoBlocksNothing() throws Exception {
        var forged = submission(Scenario.FORGED_LINKS);
        assertThat(forged.finalStatus()).isEqualTo("FAILED");
        assertThat(forged.view().stderr()).as("why").contains("could not be uploaded")
                .contains("- agent/agent1/agent_results.json\n")
                .as("the agent container's verdict, in the log the participant is shown")
                .contains("# agent-1 attempt ").contains("is unusable: not a regular file");
        // The agent's container judged every attempt's checkpoint, a link, unusable: never agent-1.done.
        assertThat(keys(forged)).noneMatch(key -> key.endsWith("/containers-status/agent-1.done"));
        for (Path job : jobFolders(forged)) {
            assertThat(job.resolve("logs/agent-1.log")).content().as("the agent's container log")
                    .contains("is unusable: not a regular file");
        }
        assertThat(callsAbout(forged)).as("EvalAI saw nothing of the file outside")
                .noneMatch(call -> call.body() != null && call.body().contains(Scenario.OUTSIDE_SECRET));
        var keys = keys(forged);
        assertThat(keys).as("logcopy wrote and uploaded its files past the FIFO").contains(
                forged.submissionId() + "/evalai/stdout.txt", forged.submissionId() + "/logcopy/logcopy.log");
        for (String key : keys) {
            assertThat(object(forged, key.substring(forged.submissionId().length() + 1))).as(key)
                    .doesNotContain(Scenario.OUTSIDE_SECRET);
        }
    }

    @Test
    @Order(20)
    void restartingTheLauncherAndTheRelayMidRunChangesNothing() {
        assertThat(restartedAt).as("the services were restarted during the run").isNotNull();
        assertThat(restartsDoneAt).as("both services were back").isNotNull();
        assertThat(run.runs().stream().flatMap(r -> callsAbout(r).stream()))
                .as("final updates sent by the restarted services")
                .anyMatch(c -> isFinalUpdate(c) && c.time().isAfter(restartsDoneAt));
        for (String service : List.of("job-launcher", "results-relay")) {
            assertThat(system.service(service).pid()).isNotEqualTo(PIDS_BEFORE.get(service));
        }
        // Every final update was sent once, nothing was dead-lettered.
        for (SubmissionRun submission : run.runs()) {
            int finals = submission.scenario() == Scenario.RESUME ? 2 : 1;
            assertThat(callsAbout(submission)).as("final updates of %s", submission.submissionId())
                    .filteredOn(LocalRunIT::isFinalUpdate).hasSize(finals);
        }
        for (String queue : List.of("submissions", "launch-requests", "submission-events", "progress-reports")) {
            var attributes = system.stack().sqs().getQueueAttributes(r -> r
                    .queueUrl(system.stack().deadLetterQueueUrl(queue))
                    .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).attributes();
            assertThat(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).as(queue + "-dlq")
                    .isEqualTo("0");
        }
    }

    @Test
    @Order(21)
    void noJobIsLeftInTheApiAndNoProcessOnTheMachine() {
        assertThat(noJobs).as("job-launcher removed every Job").isTrue();
        assertThat(system.stack().kubernetes().batch().v1().jobs().inNamespace(NAMESPACE).list().getItems())
                .isEmpty();
        var running = system.stack().processes();
        system.close();
        assertThat(running).noneMatch(ProcessHandle::isAlive);
        assertThat(LocalSystem.leftoverProcesses()).isEmpty();
    }

    private static List<SubmissionRun> finishing() {
        return run.runs().stream().filter(r -> r.scenario().expectedStatus().equals("FINISHED")).toList();
    }

    private static List<Job> jobsOf(SubmissionRun submission) {
        return JOBS.values().stream().filter(job -> submissionOf(job).equals(submission.submissionId()))
                .sorted((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName())).toList();
    }

    /**
     * What the Job runner logged of a submission's Jobs (their pods placed, containers started and ended, the Jobs'
     * ends), each with its time: why a submission ended as it did, in the message of a failing assertion.
     */
    private static String jobLines(SubmissionRun submission) {
        var names = jobsOf(submission).stream().map(job -> job.getMetadata().getName()).toList();
        var lines = new ArrayList<String>();
        try {
            String time = "";
            for (String line : Files.readAllLines(runLog)) {
                Matcher stamp = LOG_TIME.matcher(line);
                if (stamp.lookingAt()) {
                    time = stamp.group(1);
                } else if (names.stream().anyMatch(name -> line.contains("job " + name + ":")
                        || line.contains("job " + name + " "))) {
                    lines.add(time + "  " + line.substring(line.indexOf(": ") + 2).replace(
                            system.config().workDir().toString(), "<work>"));
                }
            }
        } catch (Exception e) {
            lines.add("(the run log cannot be read: " + e + ")");
        }
        return lines.isEmpty() ? "(none)" : String.join("\n", lines);
    }

    private static List<PodSeen> podsOf(SubmissionRun submission) {
        return PODS.values().stream().filter(pod -> pod.submissionId().equals(submission.submissionId())).toList();
    }

    /** The Job runner's folders of a submission's Jobs: {@code <team>-<track>-<id>-r<run>}, one per run. */
    private static List<Path> jobFolders(SubmissionRun submission) throws Exception {
        Path jobs = system.stack().workDir().resolve("kubernetes/jobs");
        try (var folders = Files.list(jobs)) {
            return folders.filter(f -> f.getFileName().toString().matches(".*-" + submission.submissionId()
                    + "-r[0-9]+")).sorted().toList();
        }
    }

    /** The Job runner's log of a container of the submission's Jobs: the output of every pod's, in turn. */
    /** Whether each pod of its run has two pairs (CLAIMED's track). */
    private static boolean twoPairs(SubmissionRun submission) {
        return submission.scenario() == Scenario.CLAIMED || submission.scenario() == Scenario.SPOT;
    }

    private static String containerLog(SubmissionRun submission, String container) {
        var log = new StringBuilder();
        try {
            for (Path job : jobFolders(submission)) {
                log.append(Files.readString(job.resolve("logs/" + container + ".log"), StandardCharsets.UTF_8));
            }
        } catch (Exception e) {
            throw new AssertionError("cannot read the " + container + " logs of " + submission.submissionId(), e);
        }
        return log.toString();
    }

    /** A file of the logs volume of a Job's pod, as the Job runner keeps the volumes of each pod. */
    private static Path inLogsVolume(Path job, String relative) throws Exception {
        try (var volumes = Files.find(job.resolve("pods"), 3, (path, attributes) -> attributes.isDirectory()
                && path.getParent().getFileName().toString().equals("volumes"))) {
            return volumes.map(volume -> volume.resolve(relative))
                    .filter(file -> Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + relative + " in a volume of " + job));
        }
    }

    private static int owner(Path file) throws Exception {
        return (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static boolean isFinalUpdate(RecordedCall call) {
        return call.method().equals("PUT") && call.path().endsWith("/update_submission/");
    }

    private static String status(RecordedCall call) {
        String status = body(call).path("submission_status").asText(null);
        if (status == null && call.body() != null) {
            Matcher form = Pattern.compile("(?:^|&)submission_status=([^&]*)").matcher(call.body());
            status = form.find() ? java.net.URLDecoder.decode(form.group(1), StandardCharsets.UTF_8) : "";
        }
        return status == null ? "" : status.toLowerCase();
    }

    private static List<RecordedCall> callsAbout(SubmissionRun submission) {
        var calls = new ArrayList<RecordedCall>();
        for (RecordedCall call : system.stack().evalAi().calls()) {
            if (call.path().endsWith("/submission/" + submission.pk()) || body(call).path("submission").asText()
                    .equals(submission.submissionId()) || formSubmission(call).equals(submission.submissionId())) {
                calls.add(call);
            }
        }
        return calls;
    }

    private static String formSubmission(RecordedCall call) {
        if (call.body() == null) {
            return "";
        }
        Matcher form = Pattern.compile("(?:^|&)submission=([0-9]+)(?:&|$)").matcher(call.body());
        return form.find() ? form.group(1) : "";
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
        return s3Objects(submission).stream().map(S3Object::key).toList();
    }

    private static List<S3Object> s3Objects(SubmissionRun submission) {
        return system.stack().s3().listObjectsV2Paginator(r -> r.bucket(submission.bucket())
                .prefix(submission.submissionId() + "/")).contents().stream().toList();
    }

    /** Every object of the submission's prefix with its ETag, size and time: what a rewrite would change. */
    private static Map<String, String> objects(SubmissionRun submission) {
        var objects = new HashMap<String, String>();
        s3Objects(submission).forEach(o -> objects.put(o.key(), o.eTag() + " " + o.size() + " " + o.lastModified()));
        return objects;
    }

    private static String object(SubmissionRun submission, String path) {
        ResponseBytes<GetObjectResponse> bytes = system.stack().s3().getObjectAsBytes(r -> r
                .bucket(submission.bucket()).key(submission.submissionId() + "/" + path));
        return bytes.asString(StandardCharsets.UTF_8);
    }

    /** The routes of the checkpoint a partial update carried ({@code metadata._checkpoint.progress[0]}). */
    private static int routes(JsonNode update) {
        JsonNode metadata = update.path("metadata");
        try {
            JsonNode parsed = metadata.isTextual() ? JSON.readTree(metadata.asText()) : metadata;
            return parsed.path("_checkpoint").path("progress").path(0).asInt(0);
        } catch (Exception e) {
            return 0;
        }
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
