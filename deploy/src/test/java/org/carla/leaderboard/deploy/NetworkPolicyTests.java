package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

import org.carla.leaderboard.deploy.NetworkPolicyVerdict.Destination;
import org.carla.leaderboard.deploy.NetworkPolicyVerdict.Pod;

/**
 * What a submission's pod can reach under deploy/submissions/network-policies.yml: the cluster DNS and public HTTPS
 * (S3, SQS, STS), never the instance metadata endpoints, the cluster's services or anything in the VPC.
 */
class NetworkPolicyTests {

    /** The label job-launcher puts on every submission pod (deploy/README.md). */
    static final Map<String, String> SUBMISSION_POD_LABELS = Map.of("leaderboard.carla.org/workload", "submission");

    private static final Pod SUBMISSION = new Pod("submissions", Map.of("kubernetes.io/metadata.name", "submissions"),
            SUBMISSION_POD_LABELS);
    private static final Pod KUBE_DNS = new Pod("kube-system", Map.of("kubernetes.io/metadata.name", "kube-system"),
            Map.of("k8s-app", "kube-dns"));
    private static final Pod INGEST_SERVICE = new Pod("leaderboard", Map.of("kubernetes.io/metadata.name", "leaderboard"),
            Map.of("app.kubernetes.io/name", "ingest-service"));

    private final NetworkPolicyVerdict verdict = new NetworkPolicyVerdict(
            DeployFiles.objects(DeployFiles.deploy("submissions/network-policies.yml")).stream()
                    .map(NetworkPolicy.class::cast).toList());

    @ParameterizedTest(name = "a submission pod cannot reach {0} port {1}")
    @CsvSource({
            "169.254.169.254, 80",   // IMDS (IPv4): the node's IAM role
            "169.254.169.254, 443",
            "fd00:ec2::254, 80",     // IMDS (IPv6)
            "169.254.170.23, 80",    // EKS Pod Identity agent
            "fd00:ec2::23, 80",
            "169.254.169.253, 53",   // the VPC's Amazon DNS, bypassing the cluster DNS
            "10.100.0.1, 443",       // the Kubernetes API service
            "172.20.14.7, 443",      // a service in the 172.16/12 service range
            "192.168.33.4, 443",     // a node or pod of the VPC
            "100.64.3.3, 443",       // custom-networking pod range
    })
    void theMetadataEndpointsAndEverythingPrivateAreOutOfReach(String ip, int port) {
        assertThat(verdict.allowsEgress(SUBMISSION, Destination.address(ip, port, "TCP"))).isFalse();
    }

    @Test
    void theClusterServicesPodsAreOutOfReachOnAnyPort() {
        assertThat(verdict.allowsEgress(SUBMISSION, new Destination("192.168.40.2", 8080, "TCP", INGEST_SERVICE))).isFalse();
        assertThat(verdict.allowsEgress(SUBMISSION, new Destination("192.168.40.2", 443, "TCP", INGEST_SERVICE))).isFalse();
    }

    @Test
    void theClusterDnsAnswersNameLookups() {
        assertThat(verdict.allowsEgress(SUBMISSION, new Destination("192.168.7.7", 53, "UDP", KUBE_DNS))).isTrue();
        assertThat(verdict.allowsEgress(SUBMISSION, new Destination("192.168.7.7", 53, "TCP", KUBE_DNS))).isTrue();
        assertThat(verdict.allowsEgress(SUBMISSION, new Destination("192.168.7.7", 9153, "TCP", KUBE_DNS))).isFalse();
    }

    @ParameterizedTest(name = "logcopy and init keep HTTPS to the public endpoint {0}")
    @CsvSource({"52.216.8.21", "3.5.0.9", "2600:1f18:4fe0::11"})
    void awsPublicEndpointsStayReachableOverHttps(String ip) {
        assertThat(verdict.allowsEgress(SUBMISSION, Destination.address(ip, 443, "TCP"))).isTrue();
        assertThat(verdict.allowsEgress(SUBMISSION, Destination.address(ip, 80, "TCP"))).isFalse();
    }

    @Test
    void nothingMayConnectToASubmissionPod() {
        assertThat(verdict.allowsAnyIngress(SUBMISSION)).isFalse();
    }

    @Test
    void aPodWithoutTheLabelHasNoNetworkAtAll() {
        Pod unlabelled = new Pod("submissions", SUBMISSION.namespaceLabels(), Map.of("job-name", "team-x-sensors-1234"));

        assertThat(verdict.allowsEgress(unlabelled, Destination.address("52.216.8.21", 443, "TCP"))).isFalse();
        assertThat(verdict.allowsEgress(unlabelled, new Destination("192.168.7.7", 53, "UDP", KUBE_DNS))).isFalse();
        assertThat(verdict.allowsAnyIngress(unlabelled)).isFalse();
    }

    @Test
    void thePoliciesOnlyGovernTheSubmissionsNamespace() {
        assertThat(verdict.allowsEgress(INGEST_SERVICE, Destination.address("169.254.169.254", 80, "TCP")))
                .as("the services' own namespace is not this file's business").isTrue();
    }

    @Test
    void cidrContainmentFollowsThePrefix() {
        assertThat(NetworkPolicyVerdict.inCidr("169.254.0.0/16", "169.254.169.254")).isTrue();
        assertThat(NetworkPolicyVerdict.inCidr("169.254.0.0/16", "169.255.0.1")).isFalse();
        assertThat(NetworkPolicyVerdict.inCidr("fc00::/7", "fd00:ec2::254")).isTrue();
        assertThat(NetworkPolicyVerdict.inCidr("0.0.0.0/0", "fd00:ec2::254")).isFalse();
        assertThat(List.of("::/0", "2600::/12")).allMatch(cidr -> NetworkPolicyVerdict.inCidr(cidr, "2600:1f18::1"));
    }
}
