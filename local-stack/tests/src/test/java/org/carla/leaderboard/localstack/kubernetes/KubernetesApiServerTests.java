package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;

class KubernetesApiServerTests {

    @Test
    void servesJobsWithWatchesStatusAndBackgroundDeletes() {
        try (KubernetesApiServer api = KubernetesApiServer.start(0); KubernetesClient client = api.newClient()) {
            assertThat(api.url()).isEqualTo("http://127.0.0.1:" + api.port() + "/");
            assertThat(client.namespaces().withName("submissions").get()).isNotNull();
            assertThat(client.getNamespace()).isEqualTo("submissions");
            List<String> events = new CopyOnWriteArrayList<>();
            var informer = client.batch().v1().jobs().inNamespace("submissions").withLabel("app", "launcher")
                    .inform(new ResourceEventHandler<>() {
                        @Override
                        public void onAdd(Job job) {
                            events.add("add " + job.getMetadata().getName());
                        }

                        @Override
                        public void onUpdate(Job before, Job after) {
                            if (after.getStatus() != null && after.getStatus().getConditions() != null
                                    && !after.getStatus().getConditions().isEmpty()) {
                                events.add("status " + after.getStatus().getConditions().get(0).getType());
                            }
                        }

                        @Override
                        public void onDelete(Job job, boolean unknown) {
                            events.add("delete " + job.getMetadata().getName());
                        }
                    });
            try {
                Job job = client.batch().v1().jobs().resource(new JobBuilder().withNewMetadata().withName("job-1")
                        .addToLabels("app", "launcher").endMetadata().withNewSpec().withNewTemplate().withNewSpec()
                        .addNewContainer().withName("c").withImage("i").endContainer().withRestartPolicy("OnFailure")
                        .endSpec().endTemplate().endSpec().build()).create();

                // A plain update does not touch the status; the /status subresource does.
                job.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().withActive(1).build());
                client.batch().v1().jobs().resource(job).update();
                assertThat(client.batch().v1().jobs().withName("job-1").get().getStatus()).satisfiesAnyOf(
                        status -> assertThat(status).isNull(), status -> assertThat(status.getActive()).isNull());
                Job current = client.batch().v1().jobs().withName("job-1").get();
                current.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().withSucceeded(1)
                        .withConditions(new JobConditionBuilder().withType("Complete").withStatus("True").build())
                        .build());
                client.batch().v1().jobs().resource(current).updateStatus();
                assertThat(client.batch().v1().jobs().withName("job-1").get().getStatus().getSucceeded()).isEqualTo(1);

                client.batch().v1().jobs().withName("job-1").withPropagationPolicy(DeletionPropagation.BACKGROUND)
                        .delete();

                await().atMost(Duration.ofSeconds(10))
                        .until(() -> events.equals(List.of("add job-1", "status Complete", "delete job-1")));
                assertThat(client.batch().v1().jobs().withName("job-1").get()).isNull();
            } finally {
                informer.close();
            }
        }
    }

    @Test
    void anUnavailableResourceAnswers503BeforeAnythingElseAsOftenAsSaidAndNothingElseMeanwhile() throws Exception {
        try (KubernetesApiServer api = KubernetesApiServer.start(0)) {
            api.unavailable("create", "batch", "jobs", 2);
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest create = HttpRequest.newBuilder(URI.create(api.url() + "apis/batch/v1/namespaces/submissions/jobs"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build();
            HttpRequest list = HttpRequest.newBuilder(URI.create(api.url() + "apis/batch/v1/namespaces/submissions/jobs"))
                    .GET().build();

            var first = http.send(create, HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(503);
            assertThat(first.body()).contains("\"reason\":\"ServiceUnavailable\"")
                    .contains("the server is currently unable to handle the request");
            assertThat(http.send(list, HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("another verb is served (anonymous: forbidden)").isEqualTo(403);
            assertThat(http.send(create, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(503);
            assertThat(http.send(create, HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("served again after two: anonymous may not create").isEqualTo(403);
        }
    }
}
