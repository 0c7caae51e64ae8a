package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.kubernetes.PodIdentity;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;

/** The EvalAI stand-in and the Kubernetes API server with the Job runner, wired into the stack. */
class ComponentsIT {

    static RunningStack stack;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder()
                .components("evalai", "kubernetes")
                .settings(Map.of(
                        "local-stack.images.tools.image", "registry.local/tools:.*",
                        "local-stack.images.tools.entrypoint", "/usr/bin/env",
                        "local-stack.kubernetes.gpu-capacity", "0"))
                .start();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void theStandInsRequirementIsStartedForItAndEveryPartIsConfigured() {
        assertThat(stack.started()).containsExactly("sqs", "evalai", "kubernetes");
        assertThat(stack.quarkusConfig())
                .containsEntry("quarkus.rest-client.evalai.url", stack.endpoints().get("evalai").toString())
                .containsKey("evalai.token")
                .containsEntry("quarkus.kubernetes-client.api-server-url", stack.endpoints().get("kubernetes").toString())
                .containsEntry("quarkus.kubernetes-client.namespace", "submissions");
    }

    @Test
    void aSubmissionCreatedAtTheStandInIsAnnouncedOnTheSubmissionsQueue() {
        var created = stack.evalAi().createSubmission(NewSubmission.of(7, "Team Seven", 2077, "registry/agent:1"));

        var messages = stack.sqs().receiveMessage(r -> r.queueUrl(stack.queueUrl("submissions")).waitTimeSeconds(10))
                .messages();

        assertThat(messages).hasSize(1);
        var announced = EventCodec.parseAnnouncement(messages.get(0).body());
        assertThat(announced.submissionPk()).isEqualTo(created.pk());
        assertThat(announced.phasePk()).isEqualTo(2077);
        stack.sqs().deleteMessage(r -> r.queueUrl(stack.queueUrl("submissions"))
                .receiptHandle(messages.get(0).receiptHandle()));
    }

    @Test
    void aClosedStackKeepsEveryCallTheStandInReceived() throws Exception {
        Path work = Files.createDirectories(Path.of("target", "components-it", Long.toString(System.nanoTime())));
        try (var own = LocalStack.builder().components("evalai").workDir(work).start()) {
            var http = HttpClient.newHttpClient();
            var unsigned = HttpRequest.newBuilder(URI.create(own.endpoints().get("evalai") + "/api/jobs/submission/7"))
                    .build();
            assertThat(http.send(unsigned, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
            var multiLine = HttpRequest.newBuilder(URI.create(own.endpoints().get("evalai")
                    + "/api/jobs/challenge/1/challenge_phase/1/update_submission/"))
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"stdout\":\"a\nb\\\\n\r\"}")).build();
            assertThat(http.send(multiLine, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
        }

        // One line a call, whatever its body holds: line breaks and backslashes escaped.
        assertThat(Files.readAllLines(work.resolve("evalai").resolve(EvalAiComponent.CALLS_FILE))).satisfiesExactly(
                get -> assertThat(get).matches("\\S+Z GET /api/jobs/submission/7 401"),
                put -> assertThat(put).endsWith(" PUT /api/jobs/challenge/1/challenge_phase/1/update_submission/ 401 "
                        + "{\"stdout\":\"a\\nb\\\\\\\\n\\r\"}"));
    }

    @Test
    void aJobCreatedThroughTheApiRunsLocallyWithTheStacksSqsEndpoint() throws Exception {
        Job job = new JobBuilder().withNewMetadata().withName("env-check").endMetadata()
                .withNewSpec().withBackoffLimit(0).withNewTemplate().withNewSpec().withRestartPolicy("OnFailure")
                .addNewContainer().withName("tools").withImage("registry.local/tools:1").endContainer()
                .endSpec().endTemplate().endSpec().build();

        stack.kubernetes().batch().v1().jobs().resource(job).create();

        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var status = stack.kubernetes().batch().v1().jobs().withName("env-check").get().getStatus();
            return status != null && status.getConditions() != null
                    && status.getConditions().stream().anyMatch(c -> "Complete".equals(c.getType()));
        });
        Path log = stack.workDir().resolve("kubernetes/jobs/env-check/logs/tools.log");
        assertThat(Files.readString(log))
                .contains("QUARKUS_SQS_ENDPOINT_OVERRIDE=" + stack.endpoints().get("sqs"))
                .contains("QUARKUS_SQS_AWS_REGION=us-east-1")
                .as("the namespace's default ServiceAccount, which no IAM role trusts").doesNotContain("CREDENTIALS");
    }

    /**
     * IRSA as EKS's webhook gives it: the containers of a pod whose ServiceAccount an IAM role of deploy/aws trusts get
     * that role's credentials, except those the pod's skip-containers annotation lists (the participant's agents); a
     * pod of another ServiceAccount gets none.
     */
    @Test
    void theWorkerRolesCredentialsReachOnlyTheContainersIrsaWouldGiveThemTo() throws Exception {
        Job job = new JobBuilder().withNewMetadata().withName("irsa-check").endMetadata()
                .withNewSpec().withBackoffLimit(0).withNewTemplate()
                .withNewMetadata().addToAnnotations(PodIdentity.SKIP_CONTAINERS, "agent-1").endMetadata()
                .withNewSpec().withRestartPolicy("OnFailure").withServiceAccountName("submission-worker")
                .addNewContainer().withName("logcopy").withImage("registry.local/tools:1").endContainer()
                .addNewContainer().withName("agent-1").withImage("registry.local/tools:1").endContainer()
                .endSpec().endTemplate().endSpec().build();

        stack.kubernetes().batch().v1().jobs().resource(job).create();

        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var status = stack.kubernetes().batch().v1().jobs().withName("irsa-check").get().getStatus();
            return status != null && status.getConditions() != null
                    && status.getConditions().stream().anyMatch(c -> "Complete".equals(c.getType()));
        });
        var worker = stack.credentials(new ServiceAccount("submissions", "submission-worker"));
        Path logs = stack.workDir().resolve("kubernetes/jobs/irsa-check/logs");
        assertThat(Files.readString(logs.resolve("logcopy.log")))
                .contains("QUARKUS_SQS_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID=" + worker.accessKeyId())
                .contains("QUARKUS_SQS_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY=" + worker.secretAccessKey());
        assertThat(Files.readString(logs.resolve("agent-1.log")))
                .contains("QUARKUS_SQS_ENDPOINT_OVERRIDE=")
                .doesNotContain("CREDENTIALS", "ACCESS_KEY", worker.secretAccessKey());
    }

    @Test
    void aGpuJobWaitsForTheCapacityTheSettingGivesAndRunsAsItsUser() throws Exception {
        Job job = new JobBuilder().withNewMetadata().withName("gpu-user").endMetadata()
                .withNewSpec().withBackoffLimit(0).withNewTemplate().withNewSpec().withRestartPolicy("OnFailure")
                .addNewContainer().withName("tools").withImage("registry.local/tools:1").withCommand("id", "-u")
                .withNewSecurityContext().withRunAsUser(1001L).endSecurityContext()
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer()
                .endSpec().endTemplate().endSpec().build();
        stack.kubernetes().batch().v1().jobs().resource(job).create();
        await().atMost(Duration.ofSeconds(60)).until(() -> stack.kubernetes().pods().withLabel("job-name", "gpu-user")
                .list().getItems().stream().anyMatch(pod -> pod.getStatus() != null && pod.getStatus().getConditions()
                        .stream().anyMatch(c -> "Unschedulable".equals(c.getReason()))));

        stack.jobRunner().gpuCapacity(1);

        await().atMost(Duration.ofSeconds(60)).until(() -> {
            var status = stack.kubernetes().batch().v1().jobs().withName("gpu-user").get().getStatus();
            return status.getConditions() != null
                    && status.getConditions().stream().anyMatch(c -> "Complete".equals(c.getType()));
        });
        String uid = Files.readString(stack.workDir().resolve("kubernetes/jobs/gpu-user/logs/tools.log")).trim();
        // Root switches users (util-linux setpriv); anyone else runs containers as itself.
        Object runner = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        assertThat(uid).isEqualTo(Integer.valueOf(0).equals(runner) ? "1001" : runner.toString());
    }
}
