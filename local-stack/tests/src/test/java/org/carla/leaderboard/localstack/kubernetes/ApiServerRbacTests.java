package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.carla.leaderboard.localstack.ServiceAccount;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The local API server authorizes every request against the RBAC of deploy/ as Kubernetes does, and refuses as
 * Kubernetes refuses: the status code, reason and message a client reads.
 */
class ApiServerRbacTests {

    private static KubernetesApiServer api;
    private static KubernetesClient admin;
    private static ServiceAccount launcher;
    private static ServiceAccount relay;
    private static ServiceAccount console;

    @BeforeAll
    static void start() {
        api = KubernetesApiServer.start(0);
        admin = api.newClient();
        launcher = api.manifests().serviceAccountOf("job-launcher");
        relay = api.manifests().serviceAccountOf("results-relay");
        console = api.manifests().serviceAccountOf("ops-console");
    }

    @AfterAll
    static void stop() {
        admin.close();
        api.close();
    }

    @Test
    void aServiceMayDoWhatItsRoleGrantsAndNothingElse() {
        try (KubernetesClient client = api.newClient(launcher)) {
            client.batch().v1().jobs().inNamespace("submissions").resource(job("granted", "OnFailure")).create();
            assertThat(client.batch().v1().jobs().inNamespace("submissions").list().getItems())
                    .extracting(j -> j.getMetadata().getName()).contains("granted");

            assertForbidden(() -> client.pods().inNamespace("submissions").withName("granted-x").get(), 403,
                    "pods \"granted-x\" is forbidden: User \"system:serviceaccount:leaderboard:job-launcher\" cannot get"
                            + " resource \"pods\" in API group \"\" in the namespace \"submissions\"");
            assertForbidden(() -> client.batch().v1().jobs().inNamespace("leaderboard").list(), 403,
                    "jobs.batch is forbidden: User \"system:serviceaccount:leaderboard:job-launcher\" cannot list"
                            + " resource \"jobs\" in API group \"batch\" in the namespace \"leaderboard\"");
        }
        try (KubernetesClient client = api.newClient(console)) {
            assertForbidden(() -> client.batch().v1().jobs().inNamespace("submissions").withName("granted").delete(),
                    403, "cannot delete resource \"jobs\" in API group \"batch\" in the namespace \"submissions\"");
        }
    }

    @Test
    void aSubresourceIsAResourceOfItsOwn() {
        admin.batch().v1().jobs().inNamespace("submissions").resource(job("status-of", "OnFailure")).create();
        try (KubernetesClient client = api.newClient(launcher)) {
            assertForbidden(() -> client.batch().v1().jobs().inNamespace("submissions").withName("status-of")
                    .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"active\":1}}"),
                    403, "jobs.batch \"status-of\" is forbidden: User \"system:serviceaccount:leaderboard:job-launcher\""
                            + " cannot patch resource \"jobs/status\" in API group \"batch\" in the namespace"
                            + " \"submissions\"");
        }
    }

    @Test
    void resourceNamesLimitTheNamedObjectAndNeverAllowAListOrACreateOfAnother() {
        admin.leases().inNamespace("leaderboard").resource(new LeaseBuilder().withNewMetadata().withName("other")
                .endMetadata().build()).create();
        try (KubernetesClient client = api.newClient(relay)) {
            assertForbidden(() -> client.leases().inNamespace("leaderboard").withName("other").get(), 403,
                    "leases.coordination.k8s.io \"other\" is forbidden");
            assertForbidden(() -> client.leases().inNamespace("leaderboard").list(), 403,
                    "cannot list resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"leaderboard\"");
            assertThat(client.leases().inNamespace("leaderboard").withName("results-relay").get()).isNull();
        }
    }

    @Test
    void anUnknownTokenIsUnauthorizedAndNoTokenIsAnonymous() throws Exception {
        var http = HttpClient.newHttpClient();
        var unknown = http.send(HttpRequest.newBuilder(URI.create(api.url() + "api/v1/namespaces/submissions/pods"))
                .header("Authorization", "Bearer not-a-token").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(401);
        assertThat(unknown.body()).contains("\"reason\":\"Unauthorized\"");
        var anonymous = http.send(HttpRequest.newBuilder(URI.create(api.url() + "api/v1/namespaces/submissions/pods"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(403);
        assertThat(anonymous.body()).contains("pods is forbidden: User \\\"system:anonymous\\\" cannot list resource"
                + " \\\"pods\\\" in API group \\\"\\\" in the namespace \\\"submissions\\\"").contains("\"kind\":\"pods\"");
        var version = http.send(HttpRequest.newBuilder(URI.create(api.url() + "version")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(version.statusCode()).as("anyone may ask the version (system:public-info-viewer)").isNotEqualTo(403);
    }

    @Test
    void theNamespacesAreDeploysAndAWriteIntoAnotherIsRefusedAsNotFound() {
        assertThat(admin.namespaces().list().getItems()).extracting(n -> n.getMetadata().getName())
                .contains("submissions", "leaderboard", "default", "kube-system");
        assertForbidden(() -> admin.batch().v1().jobs().inNamespace("nowhere").resource(job("lost", "OnFailure"))
                .create(), 404, "namespaces \"nowhere\" not found");
        assertThat(admin.batch().v1().jobs().inNamespace("nowhere").list().getItems()).isEmpty();
        assertThat(admin.batch().v1().jobs().inNamespace("nowhere").withName("lost").get()).isNull();
    }

    @Test
    void aPodFailurePolicyNeedsRestartPolicyNever() {
        Job onFailure = job("policy-on-failure", "OnFailure");
        onFailure.getSpec().setPodFailurePolicy(new io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder()
                .addNewRule().withAction("Ignore").addNewOnPodCondition().withType("DisruptionTarget")
                .withStatus("True").endOnPodCondition().endRule().build());
        assertForbidden(() -> admin.batch().v1().jobs().inNamespace("submissions").resource(onFailure).create(), 422,
                "Job.batch \"policy-on-failure\" is invalid: spec.template.spec.restartPolicy: Invalid value:"
                        + " \"OnFailure\": only \"Never\" is supported when podFailurePolicy is specified");
        onFailure.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
        admin.batch().v1().jobs().inNamespace("submissions").resource(onFailure).create();
    }

    @Test
    void anIndexedJobWithoutCompletionsIsRefusedWithEveryErrorAndOneWithMoreParallelismIsStored() {
        Job noCompletions = JobValidationTests.job("indexed", "Indexed", null, 2);
        noCompletions.getSpec().setPodFailurePolicy(new io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder()
                .addNewRule().withAction("Ignore").addNewOnPodCondition().withType("DisruptionTarget")
                .withStatus("True").endOnPodCondition().endRule().build());
        assertThatThrownBy(() -> admin.batch().v1().jobs().inNamespace("submissions").resource(noCompletions).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
                    assertThat(e.getStatus().getMessage()).isEqualTo("Job.batch \"indexed\" is invalid: ["
                            + "spec.completions: Required value: when completion mode is Indexed, "
                            + "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is"
                            + " supported when podFailurePolicy is specified]");
                    assertThat(e.getStatus().getDetails().getCauses()).extracting(c -> c.getField() + " " + c.getReason())
                            .containsExactly("spec.completions FieldValueRequired",
                                    "spec.template.spec.restartPolicy FieldValueInvalid");
                });
        assertThat(admin.batch().v1().jobs().inNamespace("submissions").withName("indexed").get()).isNull();
        admin.batch().v1().jobs().inNamespace("submissions").resource(JobValidationTests.job("indexed", "Indexed", 2, 3))
                .create();
    }

    @Test
    void whatAServiceAccountMayDoAndNeverDidIsReported() {
        try (KubernetesClient client = api.newClient(console)) {
            client.pods().inNamespace("submissions").list();
        }
        List<String> unused = api.unusedGrants(console);
        assertThat(unused).noneMatch(grant -> grant.startsWith("list /pods "));
        assertThat(unused).anyMatch(grant -> grant.startsWith("list batch/jobs "));
    }

    private static Job job(String name, String restartPolicy) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withNewTemplate()
                .withNewSpec().withRestartPolicy(restartPolicy).addNewContainer().withName("main").withImage("busybox")
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static void assertForbidden(Runnable call, int code, String message) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(code);
            assertThat(e.getStatus().getMessage()).contains(message);
        });
    }
}
