package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.CloudWatchException;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The IAM gates in front of ElasticMQ, DynamoDB Local, S3Proxy and the CloudWatch stand-in: each principal of
 * deploy/aws may do what its policies allow and is refused the rest with the service's own AccessDenied, which the
 * SDK raises as against AWS; a request signed with another secret or an unknown key is refused; every decision is
 * recorded in the server's {@code access.log}.
 */
class AccessGateIT {

    static final ServiceAccount INGEST = new ServiceAccount("leaderboard", "ingest-service");
    static final ServiceAccount LAUNCHER = new ServiceAccount("leaderboard", "job-launcher");
    static final ServiceAccount CONSOLE = new ServiceAccount("leaderboard", "ops-console");

    static RunningStack stack;
    static Path workDir;

    @BeforeAll
    static void start() throws IOException {
        workDir = Files.createDirectories(Path.of("target", "access-gate-it", Long.toString(System.nanoTime())));
        stack = LocalStack.builder().components("sqs", "dynamodb", "s3").workDir(workDir).start();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void sqsAllowsARoleItsQueuesAndRefusesTheRestWithAccessDenied() {
        try (var ingest = sqs(stack.credentials(INGEST))) {
            ingest.sendMessage(r -> r.queueUrl(stack.queueUrl("launch-requests")).messageBody("{}"));

            assertThatThrownBy(() -> ingest.sendMessage(r -> r.queueUrl(stack.queueUrl("progress-reports"))
                    .messageBody("{}")))
                    .isInstanceOfSatisfying(SqsException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                        assertThat(e.getMessage()).contains("role/carla-leaderboard-ingest-service is not authorized "
                                + "to perform: sqs:SendMessage on resource: arn:aws:sqs:us-east-1:000000000000:"
                                + "progress-reports");
                    });
        }
        assertThat(decisions("sqs")).contains(
                List.of("ALLOW", "carla-leaderboard-ingest-service", "sqs:SendMessage",
                        "arn:aws:sqs:us-east-1:000000000000:launch-requests"),
                List.of("DENY", "carla-leaderboard-ingest-service", "sqs:SendMessage",
                        "arn:aws:sqs:us-east-1:000000000000:progress-reports"));
    }

    @Test
    void dynamoDbRefusesWithAccessDeniedExceptionAsHttp400() {
        var key = Map.of("team_id", AttributeValue.fromS("t-1"), "submission_id", AttributeValue.fromS("s-1"));
        try (var launcher = AwsClients.client(DynamoDbClient.builder(), stack.endpoints().get("dynamodb"),
                stack.credentials(LAUNCHER), stack.region())) {
            launcher.getItem(r -> r.tableName("leaderboard-10").key(key));

            assertThatThrownBy(() -> launcher.deleteItem(r -> r.tableName("leaderboard-10").key(key)))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(400);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                        assertThat(e.getMessage()).contains("dynamodb:DeleteItem on resource: "
                                + "arn:aws:dynamodb:us-east-1:000000000000:table/leaderboard-10");
                    });
        }
        assertThat(decisions("dynamodb")).contains(List.of("DENY", "carla-leaderboard-job-launcher",
                "dynamodb:DeleteItem", "arn:aws:dynamodb:us-east-1:000000000000:table/leaderboard-10"));
    }

    @Test
    void s3RefusesWithAccessDeniedAsHttp403AndAHeadWithoutABody() {
        String bucket = stack.evaluation().leaderboards().get("leaderboard-20").bucket();
        stack.s3().putObject(r -> r.bucket(bucket).key("sub-1/evalai/results.json"), RequestBody.fromString("[]"));
        try (var console = s3(stack.credentials(CONSOLE)); var launcher = s3(stack.credentials(LAUNCHER))) {
            assertThat(console.getObjectAsBytes(r -> r.bucket(bucket).key("sub-1/evalai/results.json")).asUtf8String())
                    .isEqualTo("[]");

            assertThatThrownBy(() -> console.putObject(r -> r.bucket(bucket).key("sub-1/evalai/results.json"),
                    RequestBody.fromString("forged")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    });
            assertThatThrownBy(() -> launcher.headObject(r -> r.bucket(bucket).key("sub-1/evalai/results.json")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        }
        assertThat(stack.s3().getObjectAsBytes(r -> r.bucket(bucket).key("sub-1/evalai/results.json")).asUtf8String())
                .isEqualTo("[]");
    }

    @Test
    void cloudWatchRefusesWithAccessDeniedAsItsQueryCompatibleProtocolSaysIt() {
        var query = MetricDataQuery.builder().id("age").metricStat(m -> m.stat("Maximum").period(60)
                .metric(metric -> metric.namespace("AWS/SQS").metricName("ApproximateAgeOfOldestMessage")
                        .dimensions(d -> d.name("QueueName").value("submissions")))).build();
        try (var console = cloudWatch(stack.credentials(CONSOLE)); var ingest = cloudWatch(stack.credentials(INGEST))) {
            console.getMetricData(r -> r.metricDataQueries(query).startTime(Instant.now().minusSeconds(600))
                    .endTime(Instant.now()));

            assertThatThrownBy(() -> ingest.getMetricData(r -> r.metricDataQueries(query)
                    .startTime(Instant.now().minusSeconds(600)).endTime(Instant.now())))
                    .isInstanceOfSatisfying(CloudWatchException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    });
        }
        assertThat(decisions("sqs")).contains(List.of("ALLOW", "carla-leaderboard-ops-console",
                "cloudwatch:GetMetricData", "*"), List.of("DENY", "carla-leaderboard-ingest-service",
                "cloudwatch:GetMetricData", "*"));
    }

    @Test
    void aSignatureOfAnotherSecretOrAnUnknownKeyIsRefusedByEveryServer() {
        var wrongSecret = new StackCredentials(stack.credentials(INGEST).accessKeyId(), "not-its-secret");
        var unknown = StackCredentials.random();
        try (var sqs = sqs(wrongSecret);
                var dynamo = AwsClients.client(DynamoDbClient.builder(), stack.endpoints().get("dynamodb"), unknown,
                        stack.region());
                var s3 = s3(unknown)) {
            assertThatThrownBy(() -> sqs.getQueueUrl(r -> r.queueName("submissions")))
                    .isInstanceOfSatisfying(SqsException.class,
                            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch"));
            assertThatThrownBy(dynamo::listTables).isInstanceOfSatisfying(AwsServiceException.class,
                    e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnrecognizedClientException"));
            assertThatThrownBy(s3::listBuckets).isInstanceOfSatisfying(S3Exception.class,
                    e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId"));
        }
    }

    private static SqsClient sqs(StackCredentials credentials) {
        return AwsClients.client(SqsClient.builder(), stack.endpoints().get("sqs"), credentials, stack.region());
    }

    private static S3Client s3(StackCredentials credentials) {
        return AwsClients.client(S3Client.builder().forcePathStyle(true), stack.endpoints().get("s3"), credentials,
                stack.region());
    }

    private static CloudWatchClient cloudWatch(StackCredentials credentials) {
        return AwsClients.client(CloudWatchClient.builder(), stack.endpoints().get(ElasticMqServer.CLOUDWATCH),
                credentials, stack.region());
    }

    /** The server's recorded decisions: verdict, principal, action, resource. */
    private static List<List<String>> decisions(String server) {
        try {
            return Files.readAllLines(workDir.resolve(server).resolve("access.log")).stream()
                    .map(line -> List.of(line.split("\t")).subList(1, 5)).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
