package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Each AWS server taken down and brought back as the chaos run does it: killed (connections refused), started again
 * on the same port with its data; frozen (connections accepted, no answer), thawed.
 */
class ServerOutagesIT {

    static RunningStack stack;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("sqs", "dynamodb", "s3").start();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void killedElasticMqRefusesConnectionsAndComesBackWithItsQueuesAndMessages() {
        String url = stack.queueUrl("submission-events");
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("kept across a crash"));
        String redrive = redrivePolicy(url);
        ProcessHandle server = stack.component("sqs", StackComponent.class).processes().get(0);

        stack.server("sqs").kill();

        assertThat(stack.server("sqs").isUp()).isFalse();
        assertThat(server.isAlive()).isFalse();
        assertRefused("sqs");
        assertThatThrownBy(() -> stack.sqs().listQueues()).isInstanceOf(SdkClientException.class);

        stack.server("sqs").start();

        assertThat(stack.server("sqs").isUp()).isTrue();
        // At once, as EvalAI's publisher looks it up (it would create a queue it cannot find).
        assertThat(stack.sqs().getQueueUrl(r -> r.queueName("submissions")).queueUrl())
                .isEqualTo(stack.queueUrl("submissions"));
        assertThat(redrivePolicy(url)).isEqualTo(redrive);
        var received = stack.sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(5)).messages();
        assertThat(received).extracting(Message::body).containsExactly("kept across a crash");
        stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(received.get(0).receiptHandle()));
    }

    @Test
    void killedDynamoDbLocalComesBackWithItsItems() {
        String table = stack.evaluation().qualifierTable();
        stack.dynamoDb().putItem(r -> r.tableName(table).item(Map.of("team_id", AttributeValue.fromS("7"),
                "track_codename", AttributeValue.fromS("SENSORS"), "score", AttributeValue.fromN("42.5"))));

        stack.server("dynamodb").kill();
        assertRefused("dynamodb");
        stack.server("dynamodb").start();

        var item = stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true)
                .key(Map.of("team_id", AttributeValue.fromS("7"), "track_codename", AttributeValue.fromS("SENSORS"))))
                .item();
        assertThat(item).containsEntry("score", AttributeValue.fromN("42.5"));
    }

    @Test
    void killedS3ProxyComesBackWithItsObjects() {
        String bucket = stack.evaluation().leaderboards().values().iterator().next().bucket();
        stack.s3().putObject(r -> r.bucket(bucket).key("outage/kept.txt"), RequestBody.fromString("kept"));

        stack.server("s3").kill();
        assertRefused("s3");
        stack.server("s3").start();

        assertThat(stack.s3().getObjectAsBytes(r -> r.bucket(bucket).key("outage/kept.txt")).asUtf8String())
                .isEqualTo("kept");
    }

    @Test
    void aFrozenServerAcceptsConnectionsButAnswersNothingUntilThawed() throws IOException {
        URI endpoint = stack.endpoints().get("sqs");
        try (SqsClient impatient = SqsClient.builder().endpointOverride(endpoint)
                .region(software.amazon.awssdk.regions.Region.of(stack.region()))
                .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                        stack.credentials().accessKeyId(), stack.credentials().secretAccessKey()))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(2))).build()) {
            stack.server("sqs").freeze();
            try {
                assertThat(stack.server("sqs").isUp()).isFalse();
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 2000);
                    assertThat(socket.isConnected()).isTrue();
                }
                assertThatThrownBy(impatient::listQueues).isInstanceOf(ApiCallTimeoutException.class);
            } finally {
                stack.server("sqs").thaw();
            }
            assertThat(stack.server("sqs").isUp()).isTrue();
            assertThat(impatient.listQueues().queueUrls()).contains(stack.queueUrl("submissions"));
        }
    }

    @Test
    void onlyTheAwsServersCanBeTakenDown() {
        assertThatThrownBy(() -> stack.server("evalai")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("runs no 'evalai'");
    }

    private static String redrivePolicy(String url) {
        return stack.sqs().getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.REDRIVE_POLICY))
                .attributes().get(QueueAttributeName.REDRIVE_POLICY);
    }

    private static void assertRefused(String component) {
        URI endpoint = stack.endpoints().get(component);
        assertThatThrownBy(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 2000);
            }
        }).isInstanceOf(ConnectException.class);
    }
}
