package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

import org.carla.leaderboard.deploy.NetworkPolicyVerdict.Peer;
import org.carla.leaderboard.deploy.NetworkPolicyVerdict.Pod;

/**
 * What a connection may do under every NetworkPolicy an operator applies: deploy/submissions/network-policies.yml,
 * deploy/services/network-policies.yml, those of the generated manifests (the ops console's) and what
 * deploy/render-gateway-egress.sh renders (for stand-in prefix lists).
 * Addresses follow deploy/aws/network.yaml (NetworkTests ties the policies' CIDRs to it): pod endpoints (SQS, STS)
 * 10.40.8.0/28 and 10.40.8.16/28, node endpoints (ECR, EC2, Logs) 10.40.9.0/28 and 10.40.9.16/28, the services'
 * subnets 10.40.16.0/20 and 10.40.32.0/20 (the API server's interfaces), the GPU subnets 10.40.64.0/20 and
 * 10.40.80.0/20, the Kubernetes API service 172.20.0.1.
 */
class NetworkPolicyTests {

    /** The label job-launcher puts on every submission pod (deploy/README.md). */
    static final Map<String, String> SUBMISSION_POD_LABELS = Map.of("leaderboard.carla.org/workload", "submission");

    static final Pod SUBMISSION = new Pod("submissions", namespace("submissions"), SUBMISSION_POD_LABELS);
    static final Pod KUBE_DNS = new Pod("kube-system", namespace("kube-system"), Map.of("k8s-app", "kube-dns"));
    static final Pod INGEST_SERVICE = service("ingest-service");
    static final Pod JOB_LAUNCHER = service("job-launcher");
    static final Pod RESULTS_RELAY = service("results-relay");
    static final Pod OPS_CONSOLE = service("ops-console");
    static final Pod CLOUDWATCH_AGENT = new Pod("amazon-cloudwatch", namespace("amazon-cloudwatch"),
            Map.of("app.kubernetes.io/name", "cwagent-prometheus"));

    static final String SQS_ENDPOINT = "10.40.8.7";
    static final String STS_ENDPOINT = "10.40.8.21";
    static final String ECR_ENDPOINT = "10.40.9.6";
    static final String API_SERVER_INTERFACE = "10.40.17.30";
    static final String KUBERNETES_SERVICE = "172.20.0.1";
    static final String S3_ADDRESS = "52.218.44.9";        // in the stand-in S3 range 52.218.0.0/17
    static final String DYNAMODB_ADDRESS = "52.94.24.10";  // in the stand-in DynamoDB range 52.94.24.0/23
    static final String EVALAI_ADDRESS = "34.212.60.1";    // any public address: EvalAI's are not ours to list

    private static NetworkPolicyVerdict verdict;

    @BeforeAll
    static void loadEveryPolicy(@TempDir Path awsFolder) {
        List<NetworkPolicy> policies = new ArrayList<>(policiesOf("submissions/network-policies.yml"));
        policies.addAll(policiesOf("services/network-policies.yml"));
        DeployFiles.generatedServiceManifests().forEach(file -> DeployFiles.objects(file).stream()
                .filter(NetworkPolicy.class::isInstance).map(NetworkPolicy.class::cast).forEach(policies::add));
        policies.addAll(GatewayEgressRenderTests.rendered(awsFolder));
        verdict = new NetworkPolicyVerdict(policies);
    }

    @Nested
    class ASubmissionPod {

        @ParameterizedTest(name = "cannot reach {0} port {1}")
        @CsvSource({
                "169.254.169.254, 80",   // IMDS (IPv4): the node's IAM role
                "169.254.169.254, 443",
                "fd00:ec2::254, 80",     // IMDS (IPv6)
                "169.254.170.23, 80",    // EKS Pod Identity agent
                "fd00:ec2::23, 80",
                "169.254.169.253, 53",   // the VPC's Amazon DNS, bypassing the cluster DNS
                "10.40.0.2, 53",         // the VPC resolver at its VPC address
                "10.40.9.6, 443",        // a node endpoint (ECR): with credentials it brought, it could push the routes
                "10.40.9.22, 443",       // a node endpoint (CloudWatch Logs) in the other zone
                "10.40.17.30, 443",      // the API server's interface in a services' subnet
                "172.20.0.1, 443",       // the Kubernetes API service
                "10.40.70.12, 2000",     // another submission's CARLA on another GPU node
                "192.168.33.4, 443",     // any private range
                "100.64.3.3, 443",       // custom-networking pod range
                "34.212.60.1, 443",      // the internet, HTTPS
                "1.1.1.1, 53",           // a public DNS resolver
                "8.8.8.8, 443",
                "2600:1f18:4fe0::11, 443", // the internet over IPv6
                "52.94.24.10, 80",       // DynamoDB, but over HTTPS
        })
        void reachesNothingOfTheInternetTheClusterOrTheNodes(String ip, int port) {
            assertThat(verdict.allowsEgress(SUBMISSION, Peer.address(ip, port, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(SUBMISSION, Peer.address(ip, port, "UDP"))).isFalse();
        }

        @ParameterizedTest(name = "reaches {0} on 443 only")
        @ValueSource(strings = {SQS_ENDPOINT, STS_ENDPOINT, "10.40.8.5", "10.40.8.30", S3_ADDRESS, "3.5.70.1",
                "52.94.24.10"})
        void reachesTheSqsAndStsEndpointsS3AndDynamoDbOverHttpsOnly(String ip) {
            assertThat(verdict.allowsEgress(SUBMISSION, Peer.address(ip, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(SUBMISSION, Peer.address(ip, 80, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(SUBMISSION, Peer.address(ip, 443, "UDP"))).isFalse();
        }

        @Test
        void resolvesNamesThroughTheClusterDnsOnly() {
            assertThat(verdict.allowsEgress(SUBMISSION, new Peer("10.40.20.7", 53, "UDP", KUBE_DNS))).isTrue();
            assertThat(verdict.allowsEgress(SUBMISSION, new Peer("10.40.20.7", 53, "TCP", KUBE_DNS))).isTrue();
            assertThat(verdict.allowsEgress(SUBMISSION, new Peer("10.40.20.7", 9153, "TCP", KUBE_DNS))).isFalse();
        }

        @Test
        void cannotReachTheServicesPodsOnAnyPort() {
            for (Pod service : List.of(INGEST_SERVICE, JOB_LAUNCHER, RESULTS_RELAY)) {
                assertThat(verdict.allowsEgress(SUBMISSION, new Peer("10.40.18.2", 8080, "TCP", service))).isFalse();
                assertThat(verdict.allowsIngress(new Peer("10.40.70.3", 8080, "TCP", SUBMISSION), service))
                        .as("nor would the service's pod admit it").isFalse();
            }
        }

        @Test
        void nothingMayConnectToIt() {
            assertThat(verdict.allowsAnyIngress(SUBMISSION)).isFalse();
            assertThat(verdict.allowsIngress(new Peer("10.40.18.2", 2000, "TCP", JOB_LAUNCHER), SUBMISSION)).isFalse();
        }

        @Test
        void withoutTheRenderedS3PolicyItCannotReachS3EitherFailingClosed() {
            NetworkPolicyVerdict staticOnly = new NetworkPolicyVerdict(policiesOf("submissions/network-policies.yml"));

            assertThat(staticOnly.allowsEgress(SUBMISSION, Peer.address(S3_ADDRESS, 443, "TCP"))).isFalse();
            assertThat(staticOnly.allowsEgress(SUBMISSION, Peer.address(SQS_ENDPOINT, 443, "TCP"))).isTrue();
        }

        @Test
        void withoutTheLabelItHasNoNetworkAtAll() {
            Pod unlabelled = new Pod("submissions", SUBMISSION.namespaceLabels(), Map.of("job-name", "team-x-sensors-1234-r1"));

            assertThat(verdict.allowsEgress(unlabelled, Peer.address(SQS_ENDPOINT, 443, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(unlabelled, Peer.address(S3_ADDRESS, 443, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(unlabelled, new Peer("10.40.20.7", 53, "UDP", KUBE_DNS))).isFalse();
            assertThat(verdict.allowsAnyIngress(unlabelled)).isFalse();
        }
    }

    @Nested
    class TheServices {

        @ParameterizedTest(name = "{0} reaches EvalAI over HTTPS and nothing private")
        @ValueSource(strings = {"ingest-service", "results-relay"})
        void ingestAndTheRelayReachEvalAiOverHttps(String name) {
            Pod service = service(name);
            assertThat(verdict.allowsEgress(service, Peer.address(EVALAI_ADDRESS, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(service, Peer.address(EVALAI_ADDRESS, 80, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(service, Peer.address(ECR_ENDPOINT, 443, "TCP"))).isFalse();
        }

        @Test
        void onlyTheRelayOfTheTwoReachesTheKubernetesApiForItsLease() {
            assertThat(verdict.allowsEgress(RESULTS_RELAY, Peer.address(KUBERNETES_SERVICE, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(RESULTS_RELAY, Peer.address(API_SERVER_INTERFACE, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(INGEST_SERVICE, Peer.address(KUBERNETES_SERVICE, 443, "TCP")))
                    .as("no Kubernetes API").isFalse();
            assertThat(verdict.allowsEgress(INGEST_SERVICE, Peer.address(API_SERVER_INTERFACE, 443, "TCP"))).isFalse();
        }

        @Test
        void jobLauncherReachesTheKubernetesApiAndDynamoDbButNotTheInternet() {
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address(KUBERNETES_SERVICE, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address(API_SERVER_INTERFACE, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address(DYNAMODB_ADDRESS, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address(EVALAI_ADDRESS, 443, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address(S3_ADDRESS, 443, "TCP"))).as("it reads no files").isFalse();
            assertThat(verdict.allowsEgress(JOB_LAUNCHER, Peer.address("10.40.70.12", 2000, "TCP")))
                    .as("nor a submission pod").isFalse();
        }

        @ParameterizedTest(name = "{0} resolves names and reaches SQS and STS at their endpoints")
        @ValueSource(strings = {"ingest-service", "job-launcher", "results-relay"})
        void everyServiceResolvesNamesAndReachesSqsAndSts(String name) {
            Pod service = service(name);
            assertThat(verdict.allowsEgress(service, new Peer("10.40.20.7", 53, "UDP", KUBE_DNS))).isTrue();
            assertThat(verdict.allowsEgress(service, Peer.address(SQS_ENDPOINT, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(service, Peer.address(STS_ENDPOINT, 443, "TCP"))).isTrue();
            for (String imds : List.of("169.254.169.254", "169.254.170.23", "fd00:ec2::254")) {
                assertThat(verdict.allowsEgress(service, Peer.address(imds, 80, "TCP"))).as(imds).isFalse();
            }
        }

        @ParameterizedTest(name = "only the CloudWatch agent may scrape {0}")
        @ValueSource(strings = {"ingest-service", "job-launcher", "results-relay"})
        void onlyTheCloudWatchAgentMayConnectAndOnlyToTheHttpPort(String name) {
            Pod service = service(name);
            assertThat(verdict.allowsIngress(new Peer("10.40.19.4", 8080, "TCP", CLOUDWATCH_AGENT), service)).isTrue();
            assertThat(verdict.allowsIngress(new Peer("10.40.19.4", 5005, "TCP", CLOUDWATCH_AGENT), service)).isFalse();
            Pod fluentBit = new Pod("amazon-cloudwatch", namespace("amazon-cloudwatch"), Map.of("k8s-app", "fluent-bit"));
            assertThat(verdict.allowsIngress(new Peer("10.40.19.5", 8080, "TCP", fluentBit), service)).isFalse();
            assertThat(verdict.allowsIngress(Peer.address(EVALAI_ADDRESS, 8080, "TCP"), service)).isFalse();
        }

        @Test
        void theOpsConsoleReachesWhatItReadsAndNothingMayConnectToIt() {
            assertThat(verdict.allowsEgress(OPS_CONSOLE, new Peer("10.40.20.7", 53, "UDP", KUBE_DNS))).isTrue();
            assertThat(verdict.allowsEgress(OPS_CONSOLE, Peer.address(SQS_ENDPOINT, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(OPS_CONSOLE, Peer.address(EVALAI_ADDRESS, 443, "TCP"))).as("EvalAI, OIDC, S3").isTrue();
            assertThat(verdict.allowsEgress(OPS_CONSOLE, Peer.address(KUBERNETES_SERVICE, 443, "TCP"))).isTrue();
            assertThat(verdict.allowsEgress(OPS_CONSOLE, Peer.address("169.254.169.254", 80, "TCP"))).isFalse();
            assertThat(verdict.allowsEgress(OPS_CONSOLE, Peer.address("10.40.70.12", 2000, "TCP"))).as("a submission pod").isFalse();
            assertThat(verdict.allowsAnyIngress(OPS_CONSOLE)).as("operators come through kubectl port-forward").isFalse();
        }

        @Test
        void anyOtherWorkloadInTheNamespaceHasNoNetworkUntilAPolicyIsAddedForIt() {
            Pod newcomer = service("some-new-workload");

            assertThat(verdict.allowsEgress(newcomer, new Peer("10.40.20.7", 53, "UDP", KUBE_DNS))).isFalse();
            assertThat(verdict.allowsEgress(newcomer, Peer.address(EVALAI_ADDRESS, 443, "TCP"))).isFalse();
            assertThat(verdict.allowsAnyIngress(newcomer)).isFalse();
        }
    }

    @Test
    void aNamespaceWithoutPoliciesIsNotThesePoliciesBusiness() {
        Pod elsewhere = new Pod("default", namespace("default"), Map.of("app", "x"));
        assertThat(verdict.allowsEgress(elsewhere, Peer.address("169.254.169.254", 80, "TCP"))).isTrue();
    }

    @Test
    void cidrContainmentFollowsThePrefix() {
        assertThat(NetworkPolicyVerdict.inCidr("169.254.0.0/16", "169.254.169.254")).isTrue();
        assertThat(NetworkPolicyVerdict.inCidr("169.254.0.0/16", "169.255.0.1")).isFalse();
        assertThat(NetworkPolicyVerdict.inCidr("10.40.8.16/28", "10.40.8.31")).isTrue();
        assertThat(NetworkPolicyVerdict.inCidr("10.40.8.16/28", "10.40.8.32")).isFalse();
        assertThat(NetworkPolicyVerdict.inCidr("fc00::/7", "fd00:ec2::254")).isTrue();
        assertThat(NetworkPolicyVerdict.inCidr("0.0.0.0/0", "fd00:ec2::254")).isFalse();
        assertThat(List.of("::/0", "2600::/12")).allMatch(cidr -> NetworkPolicyVerdict.inCidr(cidr, "2600:1f18::1"));
    }

    static List<NetworkPolicy> policiesOf(String file) {
        return DeployFiles.objects(DeployFiles.deploy(file)).stream().map(NetworkPolicy.class::cast).toList();
    }

    private static Pod service(String name) {
        return new Pod("leaderboard", namespace("leaderboard"),
                Map.of("app.kubernetes.io/name", name, "app.kubernetes.io/part-of", "carla-leaderboard"));
    }

    private static Map<String, String> namespace(String name) {
        return Map.of("kubernetes.io/metadata.name", name);
    }
}
