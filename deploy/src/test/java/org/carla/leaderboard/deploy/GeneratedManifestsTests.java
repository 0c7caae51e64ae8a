package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;

/**
 * The committed, generated service manifests (deploy/kubernetes/<service>.yml): the EvalAI token reaches only
 * ingest-service and results-relay, job-launcher's and results-relay's Roles are exactly what they need, every service is probed, bounded
 * by the memory it was measured to use, runs twice with a disruption budget, and is configured, and the committed
 * files are what the build generates (deploy-manifests depends on the services, so the build has written them).
 */
class GeneratedManifestsTests {

    private Map<String, List<HasMetadata>> byService;

    @BeforeEach
    void loadTheGeneratedManifests() {
        List<String> missing = DeployFiles.SERVICES.stream()
                .filter(service -> !Files.isRegularFile(DeployFiles.deploy("kubernetes/" + service + ".yml")))
                .toList();
        assertThat(missing).as("deploy/kubernetes/<service>.yml missing: run deploy/kubernetes/regenerate.sh and commit").isEmpty();
        byService = DeployFiles.SERVICES.stream().collect(Collectors.toMap(service -> service,
                service -> DeployFiles.objects(DeployFiles.deploy("kubernetes/" + service + ".yml"))));
    }

    @Test
    void theEvalAiTokenIsMountedOnlyIntoIngestServiceAndResultsRelay() {
        List<HasMetadata> everything = new ArrayList<>();
        byService.values().forEach(everything::addAll);
        DeployFiles.yamlFilesUnder(DeployFiles.deploy("submissions")).forEach(file -> everything.addAll(DeployFiles.objects(file)));

        assertThat(ServiceManifestChecks.workloadsReadingSecret(everything, "evalai-token"))
                .containsExactlyInAnyOrder("ingest-service", "results-relay");
    }

    /*
     * What each Role grants, verb by verb, is checked where it is used: the local stack's API server enforces these
     * manifests, so a call a Role lacks fails the service's tests, and each service's tests fail on a grant no run of
     * them uses (job-launcher's JobControllerTests, the relay's LeaseCandidateTests, ops-console's ConsoleApiTests).
     * Here: where each Role is, who it is bound to, and that nothing reaches past it.
     */

    @Test
    void theLaunchersRoleIsInTheSubmissionsNamespaceAndOnlyOverJobsAndTheirPods() {
        List<HasMetadata> launcher = byService.get("job-launcher");
        List<Role> roles = ServiceManifestChecks.ofKind(launcher, Role.class);
        assertThat(roles).hasSize(1);
        Role role = roles.get(0);

        assertThat(role.getMetadata().getNamespace()).isEqualTo("submissions");
        assertThat(ServiceManifestChecks.rules(role)).containsOnlyKeys("batch/jobs", "/pods");
        assertThat(ServiceManifestChecks.rules(role).get("/pods")).as("pods are read, never written")
                .isSubsetOf("get", "list", "watch");

        String launcherNamespace = deployment("job-launcher").getMetadata().getNamespace();
        List<RoleBinding> bindings = ServiceManifestChecks.ofKind(launcher, RoleBinding.class);
        assertThat(bindings).singleElement().satisfies(binding -> {
            assertThat(binding.getMetadata().getNamespace()).as("a RoleBinding grants only in its own namespace").isEqualTo("submissions");
            assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
            assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
            assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
                assertThat(subject.getKind()).isEqualTo("ServiceAccount");
                assertThat(subject.getName()).isEqualTo(deployment("job-launcher").getSpec().getTemplate().getSpec().getServiceAccountName());
                assertThat(subject.getNamespace()).isEqualTo(launcherNamespace);
            });
        });
    }

    @Test
    void opsConsoleOnlyReadsTheSubmissionsJobsAndPodsAndAdmitsNoIngress() {
        List<HasMetadata> console = byService.get("ops-console");
        assertThat(ServiceManifestChecks.ofKind(console, Role.class)).singleElement().satisfies(role -> {
            assertThat(role.getMetadata().getNamespace()).isEqualTo("submissions");
            assertThat(ServiceManifestChecks.rules(role)).containsOnlyKeys("batch/jobs", "/pods")
                    .allSatisfy((resource, verbs) -> assertThat(verbs).as("read only").isSubsetOf("get", "list", "watch"));
        });
        assertThat(ServiceManifestChecks.ofKind(console, RoleBinding.class)).singleElement().satisfies(binding -> {
            assertThat(binding.getMetadata().getNamespace()).isEqualTo("submissions");
            assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
                assertThat(subject.getName()).isEqualTo("ops-console");
                assertThat(subject.getNamespace()).isEqualTo("leaderboard");
            });
        });
        assertThat(ServiceManifestChecks.ofKind(console, io.fabric8.kubernetes.api.model.Service.class))
                .singleElement().satisfies(service -> assertThat(service.getSpec().getType()).isEqualTo("ClusterIP"));
        assertThat(ServiceManifestChecks.ofKind(console, io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class))
                .singleElement().satisfies(policy -> {
                    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
                    assertThat(policy.getSpec().getIngress()).isNullOrEmpty();
                    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                            .containsEntry("app.kubernetes.io/name", "ops-console");
                });
    }

    @Test
    void theRelayMayOnlyReadRenewAndCreateItsLeaseInItsOwnNamespace() {
        List<HasMetadata> relay = byService.get("results-relay");
        String namespace = deployment("results-relay").getMetadata().getNamespace();
        assertThat(ServiceManifestChecks.ofKind(relay, Role.class)).singleElement().satisfies(role -> {
            assertThat(role.getMetadata().getNamespace()).isEqualTo(namespace).isEqualTo("leaderboard");
            // Leases only; what it may do to any Lease but its own is create one (RBAC cannot limit a create by name)
            assertThat(role.getRules()).allSatisfy(rule -> {
                assertThat(rule.getApiGroups()).containsExactly("coordination.k8s.io");
                assertThat(rule.getResources()).containsExactly("leases");
            });
            assertThat(role.getRules()).filteredOn(rule -> rule.getResourceNames() == null
                    || rule.getResourceNames().isEmpty()).allSatisfy(rule -> assertThat(rule.getVerbs())
                            .containsExactly("create"));
        });
        assertThat(ServiceManifestChecks.ofKind(relay, RoleBinding.class)).singleElement().satisfies(binding -> {
            assertThat(binding.getMetadata().getNamespace()).isEqualTo(namespace);
            assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
            assertThat(binding.getRoleRef().getName()).isEqualTo("results-relay");
            assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
                assertThat(subject.getKind()).isEqualTo("ServiceAccount");
                assertThat(subject.getName()).isEqualTo(deployment("results-relay").getSpec().getTemplate().getSpec()
                        .getServiceAccountName());
                assertThat(subject.getNamespace()).isEqualTo(namespace);
            });
        });
    }

    @Test
    void noServiceHoldsClusterWidePermissionsAndOnlyTheLauncherTheRelayAndTheConsoleHaveARole() {
        byService.forEach((service, objects) -> {
            assertThat(ServiceManifestChecks.ofKind(objects, ClusterRole.class)).as(service).isEmpty();
            assertThat(ServiceManifestChecks.ofKind(objects, ClusterRoleBinding.class)).as(service).isEmpty();
            if (!List.of("job-launcher", "results-relay", "ops-console").contains(service)) {
                assertThat(ServiceManifestChecks.ofKind(objects, Role.class)).as(service).isEmpty();
                assertThat(ServiceManifestChecks.ofKind(objects, RoleBinding.class)).as(service).isEmpty();
            }
        });
    }

    @Test
    void everyServiceIsProbedBoundedConfiguredAndRunsAsItsOwnIrsaServiceAccount() {
        for (String service : DeployFiles.SERVICES) {
            PodSpec pod = deployment(service).getSpec().getTemplate().getSpec();
            Container container = pod.getContainers().stream().filter(c -> c.getName().equals(service)).findFirst().orElseThrow();

            assertThat(container.getImage()).as(service + " image, which deploy/render.sh points at ECR")
                    .startsWith("ecr-registry.invalid/carla-leaderboard/" + service + ":");
            assertThat(container.getLivenessProbe().getHttpGet().getPath()).as(service).isEqualTo("/q/health/live");
            assertThat(container.getReadinessProbe().getHttpGet().getPath()).as(service).isEqualTo("/q/health/ready");
            assertThat(container.getResources().getRequests()).as(service + " requests").containsKeys("cpu", "memory");
            assertThat(container.getResources().getLimits()).as(service + " limits").containsKey("memory");
            assertThat(pod.getVolumes()).as(service + " mounts the ConfigMap leaderboard-config")
                    .anyMatch(volume -> volume.getConfigMap() != null && "leaderboard-config".equals(volume.getConfigMap().getName()));

            assertThat(pod.getServiceAccountName()).as(service).isEqualTo(service);
            ServiceAccount account = ServiceManifestChecks.ofKind(byService.get(service), ServiceAccount.class).stream()
                    .filter(sa -> sa.getMetadata().getName().equals(service)).findFirst().orElseThrow();
            assertThat(account.getMetadata().getAnnotations()).as(service + " IRSA role")
                    .containsEntry("eks.amazonaws.com/role-arn", "arn:aws:iam::ACCOUNT_ID:role/carla-leaderboard-" + service);
        }
    }

    @Test
    void theCommittedManifestsHoldWhatTheBuildGenerates() {
        for (String service : DeployFiles.SERVICES) {
            Path generated = DeployFiles.root().resolve(service).resolve("target/kubernetes/kubernetes.yml");
            assertThat(generated).as("written by the service's package, which the build runs before these tests").isRegularFile();

            // content, not bytes: quarkus-kubernetes writes labels in a different order from one build to the next
            assertThat(documents(DeployFiles.deploy("kubernetes/" + service + ".yml")))
                    .as("deploy/kubernetes/" + service + ".yml is stale: run deploy/kubernetes/regenerate.sh")
                    .isEqualTo(documents(generated));
        }
    }

    @Test
    void everyServiceOfThePipelineRunsTwiceAndADrainNeverTakesItsLastReplica() {
        for (String service : DeployFiles.SUBMISSION_PIPELINE) {
            Deployment deployment = deployment(service);
            assertThat(deployment.getSpec().getReplicas()).as(service + " replicas").isGreaterThanOrEqualTo(2);

            PodDisruptionBudget budget = ServiceManifestChecks.ofKind(byService.get(service), PodDisruptionBudget.class).stream()
                    .findFirst().orElseThrow(() -> new AssertionError(service + " has no PodDisruptionBudget"));
            assertThat(budget.getMetadata().getNamespace()).isEqualTo(deployment.getMetadata().getNamespace());
            assertThat(budget.getSpec().getMinAvailable().getIntVal()).as(service).isEqualTo(1);
            assertThat(NetworkPolicyVerdict.selects(budget.getSpec().getSelector(),
                    deployment.getSpec().getTemplate().getMetadata().getLabels())).as(service + "'s budget selects its pods").isTrue();
            assertThat(deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints())
                    .as(service + " replicas spread over nodes").anyMatch(c -> c.getTopologyKey().equals("kubernetes.io/hostname"));
        }
    }

    @Test
    void everyMemoryLimitLeavesHeadroomAboveTheMeasuredUse() {
        Map<String, Double> measured = MeasuredMemory.afterTheIntake();
        assertThat(measured).containsOnlyKeys("ingest-service", "job-launcher");
        double largest = measured.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        for (String service : DeployFiles.SUBMISSION_PIPELINE) {
            Container container = deployment(service).getSpec().getTemplate().getSpec().getContainers().get(0);
            double limitMib = Quantity.getAmountInBytes(container.getResources().getLimits().get("memory")).doubleValue() / (1 << 20);
            double requestMib = Quantity.getAmountInBytes(container.getResources().getRequests().get("memory")).doubleValue() / (1 << 20);
            // the relay was not measured: it is sized as the largest service that was (deploy/README.md, "Sizing")
            double use = measured.getOrDefault(service, largest);

            assertThat(limitMib).as(service + " memory limit (MiB) over its measured RSS (" + use + " MiB)").isGreaterThanOrEqualTo(1.5 * use);
            assertThat(requestMib).as(service + " memory request: what it uses under load is reserved").isGreaterThanOrEqualTo(use);
        }
    }

    private static List<Object> documents(Path file) {
        List<Object> documents = new ArrayList<>();
        new Yaml().loadAll(DeployFiles.read(file)).forEach(documents::add);
        return documents;
    }

    private Deployment deployment(String service) {
        return ServiceManifestChecks.ofKind(byService.get(service), Deployment.class).stream()
                .filter(deployment -> deployment.getMetadata().getName().equals(service)).findFirst().orElseThrow();
    }
}
