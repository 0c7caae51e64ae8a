package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.CloudWatchException;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataQuery;
import software.amazon.awssdk.services.cloudwatch.model.MetricDataResult;
import software.amazon.awssdk.services.cloudwatch.model.ScanBy;

/**
 * The queues' CloudWatch metrics, read with the AWS SDK's CloudWatch client (RPC v2 CBOR) as ops-console reads them:
 * the age of a queue's oldest message grows while it waits, counts a message received and not deleted (in flight, as
 * SQS counts it), falls to 0 once it is deleted, and survives ElasticMQ's kill and restart with the queue's messages.
 */
class QueueMetricsIT {

    static RunningStack stack;
    static CloudWatchClient cloudWatch;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("sqs").start();
        cloudWatch = AwsClients.client(CloudWatchClient.builder(), stack.endpoints().get(ElasticMqServer.CLOUDWATCH),
                stack.credentials(), stack.region());
    }

    @AfterAll
    static void stop() {
        cloudWatch.close();
        stack.close();
    }

    @Test
    void theOldestMessagesAgeGrowsWhileItWaitsCountsInFlightAndEndsWhenDeleted() {
        assertThat(stack.quarkusConfig()).containsEntry(ElasticMqServer.METRICS_ENDPOINT_KEY,
                stack.endpoints().get(ElasticMqServer.CLOUDWATCH).toString());
        String url = stack.queueUrl("launch-requests");
        Instant sent = Instant.now();
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("{\"waits\": true}"));
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("{\"younger\": true}"));

        // Measured every 5 s: within two measures the age is at least 5 s, never more than the time since the send.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(latest("launch-requests"))
                .isGreaterThanOrEqualTo(5.0));
        assertThat(latest("launch-requests"))
                .isLessThanOrEqualTo(Duration.between(sent, Instant.now()).toSeconds() + 1.0);
        assertThat(latest("submissions")).as("an empty queue's oldest message is 0 s old").isZero();

        // Received and not deleted: still the queue's, still its oldest.
        var received = stack.sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10)
                .visibilityTimeout(600)).messages();
        assertThat(received).hasSize(2);
        double before = latest("launch-requests");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(latest("launch-requests"))
                .isGreaterThan(before));

        received.forEach(m -> stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle())));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(fresh("launch-requests").value())
                .isZero());
    }

    @Test
    void ageIsMeasuredAgainAfterElasticMqIsKilledAndStartedWithItsMessages() {
        String url = stack.queueUrl("progress-reports");
        long sent = Instant.now().getEpochSecond();
        stack.sqs().sendMessage(r -> r.queueUrl(url).messageBody("{\"kept\": true}"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(latest("progress-reports"))
                .isGreaterThanOrEqualTo(1.0));

        stack.server(ElasticMqServer.NAME).kill();
        stack.server(ElasticMqServer.NAME).start();
        long restarted = Instant.now().getEpochSecond();

        // The same endpoint; a measure taken after the restart counts the message's age from its send.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var datapoint = fresh("progress-reports");
            assertThat(datapoint.at()).isGreaterThanOrEqualTo(restarted);
            assertThat(datapoint.value()).isGreaterThanOrEqualTo(datapoint.at() - sent - 1.0)
                    .isGreaterThan(datapoint.at() - restarted + 1.0);
        });
        stack.sqs().purgeQueue(r -> r.queueUrl(url));
    }

    @Test
    void whatTheStandInDoesNotServeIsRefusedTheWayCloudWatchRefusesIt() {
        var now = Instant.now();
        assertThatThrownBy(() -> cloudWatch.getMetricData(r -> r.startTime(now.minusSeconds(60)).endTime(now)
                .metricDataQueries(MetricDataQuery.builder().id("m1").expression("SUM(METRICS())").build())))
                .isInstanceOfSatisfying(CloudWatchException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("metric math");
                });
        // A queue that does not exist has no datapoints, as in CloudWatch.
        assertThat(results("no-such-queue", now.minusSeconds(300), now).get(0).values()).isEmpty();
    }

    /** The newest datapoint of the last 5 minutes, a minute's maximum, as ops-console asks for it. */
    private static double latest(String queue) {
        var now = Instant.now();
        List<Double> values = results(queue, now.minusSeconds(300), now.plusSeconds(60)).get(0).values();
        assertThat(values).as("datapoints of " + queue).isNotEmpty();
        return values.get(0);
    }

    private record Datapoint(long at, double value) {
    }

    /** The newest single measure (a period of 1 s) of the last 6 s: when it was taken and the age then. */
    private static Datapoint fresh(String queue) {
        var now = Instant.now();
        var result = cloudWatch.getMetricData(r -> r.startTime(now.minusSeconds(6)).endTime(now.plusSeconds(1))
                .scanBy(ScanBy.TIMESTAMP_DESCENDING).metricDataQueries(query(queue, 1))).metricDataResults().get(0);
        assertThat(result.values()).as("fresh datapoints of " + queue).isNotEmpty();
        return new Datapoint(result.timestamps().get(0).getEpochSecond(), result.values().get(0));
    }

    private static List<MetricDataResult> results(String queue, Instant from, Instant to) {
        return cloudWatch.getMetricData(r -> r.startTime(from).endTime(to).scanBy(ScanBy.TIMESTAMP_DESCENDING)
                .metricDataQueries(query(queue, 60))).metricDataResults();
    }

    private static MetricDataQuery query(String queue, int period) {
        return MetricDataQuery.builder().id("age").returnData(true).metricStat(s -> s.stat("Maximum").period(period)
                .metric(m -> m.namespace("AWS/SQS").metricName("ApproximateAgeOfOldestMessage")
                        .dimensions(d -> d.name("QueueName").value(queue)))).build();
    }
}
