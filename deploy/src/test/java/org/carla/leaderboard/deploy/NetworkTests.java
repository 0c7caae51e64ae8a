package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;
import org.carla.leaderboard.messaging.QueuesConfig;

/**
 * deploy/aws/network.yaml against what runs in it: the GPU subnets have no way out of the VPC but the endpoints, the
 * endpoints admit only this leaderboard's buckets, queues and roles, the NetworkPolicies name the endpoints' and the
 * API server's subnets by the template's own CIDRs, and eksctl puts each node group and the control plane where the
 * policies expect them.
 */
class NetworkTests {

    private final CloudFormationTemplate network = CloudFormationTemplate.read(DeployFiles.deploy("aws/network.yaml"));
    private final CloudFormationTemplate backend = CloudFormationTemplate.read(DeployFiles.deploy("aws/leaderboard-backend.yaml"));

    @Test
    void theGpuSubnetsHaveNoRouteOutOfTheVpcButTheS3AndDynamoDbGatewayEndpoints() {
        String gpuTable = routeTableOf("GpuSubnetA");
        assertThat(routeTableOf("GpuSubnetB")).isEqualTo(gpuTable);

        assertThat(routesOf(gpuTable)).as("no NAT gateway, no internet gateway, no peering, no transit").isEmpty();
        assertThat(gatewayEndpointsOn(gpuTable)).containsExactly("com.amazonaws.${AWS::Region}.s3",
                "com.amazonaws.${AWS::Region}.dynamodb");
    }

    @Test
    void theServicesSubnetsGoOutThroughTheNatGatewayAndReachS3AndDynamoDbThroughTheirGatewayEndpoints() {
        String servicesTable = routeTableOf("ServicesSubnetA");
        assertThat(routeTableOf("ServicesSubnetB")).isEqualTo(servicesTable);

        assertThat(routesOf(servicesTable)).singleElement().satisfies(route -> {
            assertThat(route).containsEntry("DestinationCidrBlock", "0.0.0.0/0");
            assertThat(route).containsKey("NatGatewayId");
        });
        assertThat(gatewayEndpointsOn(servicesTable))
                .containsExactlyInAnyOrder("com.amazonaws.${AWS::Region}.s3", "com.amazonaws.${AWS::Region}.dynamodb");
    }

    @Test
    void theS3EndpointAdmitsThisAccountsLeaderboardBucketsAndEcrsImageLayersOnly() {
        List<Map<String, Object>> statements = statements("S3Endpoint");
        Map<String, Object> buckets = statement(statements, "LeaderboardBuckets");
        List<String> patterns = resources(buckets);
        for (String bucket : bucketNames()) {
            assertThat(patterns).as(bucket).anyMatch(pattern -> glob(pattern, "arn:${AWS::Partition}:s3:::" + bucket))
                    .anyMatch(pattern -> glob(pattern, "arn:${AWS::Partition}:s3:::" + bucket + "/412977/results.json"));
        }
        assertThat(buckets.get("Condition").toString()).as("a look-alike bucket name in another account is refused")
                .isEqualTo("{StringEquals={aws:ResourceAccount={Ref=AWS::AccountId}}}");
        assertThat(patterns).noneMatch(pattern -> glob(pattern, "arn:${AWS::Partition}:s3:::participant-exfiltration-bucket/routes.xml"));

        Map<String, Object> layers = statement(statements, "EcrImageLayers");
        assertThat(list(layers.get("Action"))).containsExactly("s3:GetObject");
        assertThat(resources(layers)).containsExactly("arn:${AWS::Partition}:s3:::prod-${AWS::Region}-starport-layer-bucket/*");
        assertThat(statements).hasSize(2);
    }

    @Test
    void theSqsEndpointAdmitsExactlyTheLeaderboardsQueuesForThisAccountsPrincipals() {
        Map<String, Object> queues = statement(statements("SqsEndpoint"), "LeaderboardQueues");
        Set<String> expected = new TreeSet<>();
        for (String queue : QueuesConfig.ALL) {
            for (String name : List.of(queue, queue + "-dlq")) {
                backend.named("AWS::SQS::Queue", "QueueName", name);
                expected.add("arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:" + name);
            }
        }
        assertThat(new TreeSet<>(resources(queues))).isEqualTo(expected);
        assertThat(queues.get("Condition").toString()).isEqualTo("{StringEquals={aws:PrincipalAccount={Ref=AWS::AccountId}}}");
        assertThat(list(queues.get("Action"))).allMatch(action -> action.toString().startsWith("sqs:"))
                .noneMatch(action -> action.toString().endsWith("*"));
    }

    @Test
    void theStsEndpointTurnsAWebIdentityIntoThisAccountsRolesOnly() {
        Map<String, Object> roles = statement(statements("StsEndpoint"), "ThisAccountsRoles");
        assertThat(resources(roles)).containsExactly("arn:${AWS::Partition}:iam::${AWS::AccountId}:role/*");
        assertThat(list(roles.get("Action"))).contains("sts:AssumeRoleWithWebIdentity");
    }

    @Test
    void theDynamoDbEndpointAdmitsThisAccountsLeaderboardTablesOnly() {
        Map<String, Object> tables = statement(statements("DynamoDbEndpoint"), "LeaderboardTables");
        for (String table : backend.ofType("AWS::DynamoDB::Table")) {
            String name = backend.properties(table).get("TableName").toString();
            assertThat(resources(tables)).as(name).anyMatch(pattern -> glob(pattern,
                    "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/" + name));
        }
        assertThat(tables.get("Condition").toString()).isEqualTo("{StringEquals={aws:PrincipalAccount={Ref=AWS::AccountId}}}");
    }

    @Test
    void theSubmissionPodsMayReachThePodEndpointsSubnetsAndNotTheNodeEndpointsOnes() {
        List<String> podEndpoints = List.of(cidr("PodEndpointSubnetA"), cidr("PodEndpointSubnetB"));
        for (String endpoint : List.of("SqsEndpoint", "StsEndpoint")) {
            assertThat(subnetsOf(endpoint)).as(endpoint).containsExactly("PodEndpointSubnetA", "PodEndpointSubnetB");
            assertThat(network.properties(endpoint)).containsEntry("PrivateDnsEnabled", true);
        }
        List<String> interfaceEndpoints = network.ofType("AWS::EC2::VPCEndpoint").stream()
                .filter(id -> "Interface".equals(network.properties(id).get("VpcEndpointType"))).toList();
        assertThat(interfaceEndpoints).containsExactlyInAnyOrder("SqsEndpoint", "StsEndpoint", "EcrApiEndpoint",
                "EcrDkrEndpoint", "Ec2Endpoint", "LogsEndpoint");
        interfaceEndpoints.stream().filter(id -> !List.of("SqsEndpoint", "StsEndpoint").contains(id)).forEach(id ->
                assertThat(subnetsOf(id)).as(id).containsExactly("NodeEndpointSubnetA", "NodeEndpointSubnetB"));

        assertThat(allowedCidrs("submissions/network-policies.yml", "submission-egress"))
                .as("the submission pods' policy names the pod endpoints' subnets, and nothing else of the VPC")
                .containsExactlyElementsOf(podEndpoints);
        assertThat(allowedCidrs("services/network-policies.yml", "services-dns-and-aws-endpoints"))
                .containsExactlyElementsOf(podEndpoints);
    }

    @Test
    void jobLauncherReachesTheApiServerWhereTheClusterPutsIt() {
        Map<String, Object> cluster = new Yaml().load(DeployFiles.read(DeployFiles.deploy("cluster/cluster.yaml")));
        Map<String, Object> vpc = map(cluster.get("vpc"));
        assertThat(vpc.get("controlPlaneSubnetIDs")).isEqualTo(List.of("NETWORK_ServicesSubnetA", "NETWORK_ServicesSubnetB"));
        assertThat(map(vpc.get("clusterEndpoints"))).containsEntry("privateAccess", true);
        String serviceCidr = map(cluster.get("kubernetesNetworkConfig")).get("serviceIPv4CIDR").toString();
        assertThat(serviceCidr).isEqualTo("172.20.0.0/16");

        assertThat(allowedCidrs("services/network-policies.yml", "kubernetes-api"))
                .as("the API service's address, the first of the service range, and the control plane's subnets")
                .containsExactly("172.20.0.1/32", cidr("ServicesSubnetA"), cidr("ServicesSubnetB"));
    }

    @ParameterizedTest(name = "the {0} node group runs in its own subnets")
    @ValueSource(strings = {"services", "gpu-submissions", "gpu-submissions-spot"})
    void everyNodeGroupRunsInTheSubnetsMeantForIt(String group) {
        Map<String, Object> cluster = new Yaml().load(DeployFiles.read(DeployFiles.deploy("cluster/cluster.yaml")));
        Map<String, Object> privateSubnets = map(map(map(cluster.get("vpc")).get("subnets")).get("private"));
        Map<String, Object> nodeGroup = list(cluster.get("managedNodeGroups")).stream().map(CloudFormationTemplate::map)
                .filter(candidate -> group.equals(candidate.get("name"))).findFirst().orElseThrow();
        String prefix = group.equals("services") ? "Services" : "Gpu";

        assertThat(nodeGroup).containsEntry("privateNetworking", true);
        assertThat(list(nodeGroup.get("subnets")).stream().map(name -> map(privateSubnets.get(name.toString())).get("id")))
                .containsExactly("NETWORK_" + prefix + "SubnetA", "NETWORK_" + prefix + "SubnetB");
    }

    @Test
    void theDnsFirewallAnswersTheAllowedNamesAndRefusesEveryOtherOne() {
        List<Object> rules = list(network.properties("DnsFirewallRules").get("FirewallRules"));
        Map<String, Object> allow = map(rules.get(0));
        Map<String, Object> block = map(rules.get(rules.size() - 1));

        assertThat(allow).containsEntry("Action", "ALLOW").containsEntry("FirewallDomainListId", Map.of("Ref", "AllowedDomains"));
        assertThat(block).containsEntry("Action", "BLOCK").containsEntry("FirewallDomainListId", Map.of("Ref", "EveryDomain"));
        assertThat((Integer) allow.get("Priority")).isLessThan((Integer) block.get("Priority"));
        assertThat(network.properties("EveryDomain").get("Domains")).isEqualTo(List.of("*"));
        assertThat(list(network.properties("AllowedDomains").get("Domains")))
                .contains("*.amazonaws.com", "eval.ai", "*.eval.ai").doesNotContain("*");
        assertThat(network.properties("DnsFirewallAssociation")).containsEntry("VpcId", Map.of("Ref", "Vpc"));
        assertThat((Integer) network.properties("DnsFirewallExtraAssociation").get("Priority"))
                .as("the operator's additions are evaluated before the block")
                .isLessThan((Integer) network.properties("DnsFirewallAssociation").get("Priority"));
    }

    @Test
    void theVpcResolvesTheEndpointsPrivateNames() {
        assertThat(network.properties("Vpc")).containsEntry("EnableDnsSupport", true).containsEntry("EnableDnsHostnames", true);
    }

    /** Whether an IAM resource pattern matches the name: "*" stands for any run of characters, "/" included. */
    static boolean glob(String pattern, String name) {
        StringBuilder regex = new StringBuilder();
        for (String part : pattern.split("\\*", -1)) {
            regex.append(regex.isEmpty() ? "" : ".*").append(java.util.regex.Pattern.quote(part));
        }
        return name.matches(regex.toString());
    }

    private List<String> bucketNames() {
        return backend.ofType("AWS::S3::Bucket").stream()
                .map(id -> map(backend.properties(id).get("BucketName")).get("Fn::Sub").toString()).toList();
    }

    private String routeTableOf(String subnet) {
        return network.ofType("AWS::EC2::SubnetRouteTableAssociation").stream().map(network::properties)
                .filter(association -> Map.of("Ref", subnet).equals(association.get("SubnetId")))
                .map(association -> map(association.get("RouteTableId")).get("Ref").toString())
                .findFirst().orElseThrow(() -> new AssertionError(subnet + " has no route table"));
    }

    private List<Map<String, Object>> routesOf(String table) {
        return network.ofType("AWS::EC2::Route").stream().map(network::properties)
                .filter(route -> Map.of("Ref", table).equals(route.get("RouteTableId"))).toList();
    }

    private List<String> gatewayEndpointsOn(String table) {
        return network.ofType("AWS::EC2::VPCEndpoint").stream().map(network::properties)
                .filter(endpoint -> "Gateway".equals(endpoint.get("VpcEndpointType")))
                .filter(endpoint -> list(endpoint.get("RouteTableIds")).contains(Map.of("Ref", table)))
                .map(endpoint -> map(endpoint.get("ServiceName")).get("Fn::Sub").toString()).toList();
    }

    private List<String> subnetsOf(String endpoint) {
        return list(network.properties(endpoint).get("SubnetIds")).stream().map(ref -> map(ref).get("Ref").toString()).toList();
    }

    private String cidr(String subnet) {
        return network.properties(subnet).get("CidrBlock").toString();
    }

    private List<Map<String, Object>> statements(String endpoint) {
        return list(map(network.properties(endpoint).get("PolicyDocument")).get("Statement")).stream()
                .map(CloudFormationTemplate::map).toList();
    }

    private static Map<String, Object> statement(List<Map<String, Object>> statements, String sid) {
        return statements.stream().filter(statement -> sid.equals(statement.get("Sid"))).findFirst()
                .orElseThrow(() -> new AssertionError("no statement " + sid));
    }

    private static List<String> resources(Map<String, Object> statement) {
        return list(statement.get("Resource")).stream()
                .map(resource -> resource instanceof Map<?, ?> sub ? Objects.toString(sub.get("Fn::Sub")) : resource.toString())
                .toList();
    }

    private static List<String> allowedCidrs(String file, String policyName) {
        NetworkPolicy policy = NetworkPolicyTests.policiesOf(file).stream()
                .filter(candidate -> candidate.getMetadata().getName().equals(policyName)).findFirst().orElseThrow();
        List<String> cidrs = new ArrayList<>();
        policy.getSpec().getEgress().forEach(rule -> rule.getTo().stream().filter(peer -> peer.getIpBlock() != null)
                .forEach(peer -> cidrs.add(peer.getIpBlock().getCidr())));
        return cidrs;
    }
}
