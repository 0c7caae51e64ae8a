package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

import org.carla.leaderboard.deploy.DeployScripts.Run;

/**
 * deploy/render-gateway-egress.sh turns the region's S3 and DynamoDB prefix lists into the NetworkPolicies that admit
 * exactly their addresses, and refuses an answer that would admit more (or nothing) before printing anything.
 */
class GatewayEgressRenderTests {

    static final String REGION = "eu-west-1";
    /** Stand-in entries of com.amazonaws.eu-west-1.s3 and ...dynamodb (the shapes AWS publishes). */
    static final List<String> S3_RANGES = List.of("3.5.64.0/21", "52.92.0.0/17", "52.218.0.0/17");
    static final List<String> DYNAMODB_RANGES = List.of("52.94.24.0/23", "52.119.240.0/21");

    @TempDir
    Path awsFolder;

    /** The policies the script prints for the stand-in prefix lists above. */
    static List<NetworkPolicy> rendered(Path awsFolder) {
        Run run = DeployScripts.run(standIn(awsFolder), "render-gateway-egress.sh", REGION);
        assertThat(run.exitCode()).as(run.err()).isZero();
        return RenderTests.objects(run.out()).stream().map(NetworkPolicy.class::cast).toList();
    }

    @Test
    void theSubmissionPodsGetS3sAndDynamoDbsRangesAndJobLauncherDynamoDbsOnHttpsOnly() {
        List<NetworkPolicy> policies = rendered(awsFolder);

        assertThat(policies).extracting(policy -> policy.getMetadata().getNamespace() + "/" + policy.getMetadata().getName())
                .containsExactly("submissions/submission-egress-s3", "submissions/submission-egress-dynamodb",
                        "leaderboard/job-launcher-dynamodb");
        assertThat(cidrs(policies.get(0))).containsExactlyElementsOf(S3_RANGES);
        assertThat(cidrs(policies.get(1))).containsExactlyElementsOf(DYNAMODB_RANGES);
        assertThat(cidrs(policies.get(2))).containsExactlyElementsOf(DYNAMODB_RANGES);
        for (NetworkPolicy policy : policies) {
            assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Egress");
            assertThat(policy.getSpec().getEgress()).singleElement().satisfies(rule -> assertThat(rule.getPorts())
                    .singleElement().satisfies(port -> {
                        assertThat(port.getProtocol()).isEqualTo("TCP");
                        assertThat(port.getPort().getIntVal()).isEqualTo(443);
                    }));
            assertThat(UnknownFields.of(policy)).isEmpty();
        }
    }

    @Test
    void theCliIsAskedForTheRegionsOwnPrefixLists() {
        FakeAwsCli aws = standIn(awsFolder);
        DeployScripts.run(aws, "render-gateway-egress.sh", REGION);

        assertThat(aws.calls()).anyMatch(call -> call.contains("describe-managed-prefix-lists") && call.contains("--region eu-west-1")
                && call.contains("Values=com.amazonaws.eu-west-1.s3"));
        assertThat(aws.calls()).anyMatch(call -> call.contains("Values=com.amazonaws.eu-west-1.dynamodb"));
    }

    @Test
    void anEntryThatWouldOpenTheInternetIsRefusedBeforeAnythingIsPrinted() {
        FakeAwsCli aws = new FakeAwsCli(awsFolder)
                .prefixList("com.amazonaws.eu-west-1.s3", "pl-6da54004", List.of("52.92.0.0/17", "0.0.0.0/0"))
                .prefixList("com.amazonaws.eu-west-1.dynamodb", "pl-6fa54006", DYNAMODB_RANGES);

        Run run = DeployScripts.run(aws, "render-gateway-egress.sh", REGION);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("0.0.0.0/0");
    }

    @Test
    void aMissingPrefixListIsRefusedBeforeAnythingIsPrinted() {
        FakeAwsCli aws = new FakeAwsCli(awsFolder)
                .prefixList("com.amazonaws.eu-west-1.s3", "pl-6da54004", S3_RANGES)
                .noPrefixList("com.amazonaws.eu-west-1.dynamodb");

        Run run = DeployScripts.run(aws, "render-gateway-egress.sh", REGION);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("no prefix list com.amazonaws.eu-west-1.dynamodb");
    }

    @Test
    void aHostileRegionNeverReachesTheCli() {
        FakeAwsCli aws = standIn(awsFolder);

        Run run = DeployScripts.run(aws, "render-gateway-egress.sh", "eu-west-1 --endpoint-url http://evil");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(aws.calls()).isEmpty();
    }

    private static FakeAwsCli standIn(Path folder) {
        return new FakeAwsCli(folder)
                .prefixList("com.amazonaws.eu-west-1.s3", "pl-6da54004", S3_RANGES)
                .prefixList("com.amazonaws.eu-west-1.dynamodb", "pl-6fa54006", DYNAMODB_RANGES);
    }

    private static List<String> cidrs(HasMetadata policy) {
        return ((NetworkPolicy) policy).getSpec().getEgress().get(0).getTo().stream()
                .map(peer -> peer.getIpBlock().getCidr()).toList();
    }
}
