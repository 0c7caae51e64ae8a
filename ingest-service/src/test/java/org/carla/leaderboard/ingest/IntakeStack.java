package org.carla.leaderboard.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.messaging.QueuesConfig;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** What the intake tests do with the local stack: send announcements, read the queues, the tables and the metrics. */
final class IntakeStack {

    static final long OPEN_PHASE = 1187;
    static final long GATED_PHASE = 2077;
    static final String IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/team-agent:v3";
    /**
     * How long a test waits for what the intake does in a second or two on an idle machine (a message handled, a
     * request published): on a busy one it takes many times that. Never a bound a test asserts.
     */
    static final Duration PATIENCE = Duration.ofSeconds(60);

    private final RunningStack stack;

    IntakeStack(RunningStack stack) {
        this.stack = stack;
    }

    /** Empties every queue the intake touches, so a test sees only what it caused. */
    void purge() {
        for (String queue : List.of(QueuesConfig.SUBMISSIONS, QueuesConfig.LAUNCH_REQUESTS,
                QueuesConfig.SUBMISSION_EVENTS)) {
            stack.sqs().purgeQueue(r -> r.queueUrl(stack.queueUrl(queue)));
            stack.sqs().purgeQueue(r -> r.queueUrl(stack.deadLetterQueueUrl(queue)));
        }
        stack.evalAi().clearFaults();
    }

    static long uniqueTeam() {
        return ThreadLocalRandom.current().nextLong(1_000_000, 1_000_000_000);
    }

    void announce(String body) {
        stack.sqs().sendMessage(r -> r.queueUrl(stack.queueUrl(QueuesConfig.SUBMISSIONS)).messageBody(body));
    }

    static String announcement(Object challengePk, Object phasePk, Object submissionPk, String image) {
        var json = new StringBuilder("{");
        json.append("\"challenge_pk\":").append(jsonValue(challengePk));
        json.append(",\"phase_pk\":").append(jsonValue(phasePk));
        json.append(",\"submission_pk\":").append(jsonValue(submissionPk));
        if (image != null) {
            json.append(",\"submitted_image_uri\":").append(jsonValue(image));
        }
        return json.append(",\"is_static_dataset_code_upload_submission\":false}").toString();
    }

    private static String jsonValue(Object value) {
        if (value instanceof String text) {
            return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }
        return String.valueOf(value);
    }

    List<LaunchRequest> awaitLaunchRequests(int count) {
        return awaitMessages(QueuesConfig.LAUNCH_REQUESTS, false, count).stream()
                .map(m -> EventCodec.parseLaunchRequest(m.body())).toList();
    }

    /** The launch requests on the queue now (received and deleted; one long poll of a second). */
    List<LaunchRequest> receiveLaunchRequests() {
        return receive(stack.queueUrl(QueuesConfig.LAUNCH_REQUESTS), 1).stream()
                .map(m -> EventCodec.parseLaunchRequest(m.body())).toList();
    }

    List<SubmissionEvent> awaitSubmissionEvents(int count) {
        return awaitMessages(QueuesConfig.SUBMISSION_EVENTS, false, count).stream()
                .map(m -> EventCodec.parseSubmissionEvent(m.body())).toList();
    }

    /** The dead-lettered announcements, with their reason attributes. */
    List<Message> awaitDeadLetters(int count) {
        return awaitMessages(QueuesConfig.SUBMISSIONS, true, count);
    }

    /** Receives (and deletes) {@code count} messages; fails after {@link #PATIENCE}. */
    List<Message> awaitMessages(String queue, boolean deadLetter, int count) {
        String url = deadLetter ? stack.deadLetterQueueUrl(queue) : stack.queueUrl(queue);
        var messages = new ArrayList<Message>();
        Instant deadline = Instant.now().plus(PATIENCE);
        while (messages.size() < count && Instant.now().isBefore(deadline)) {
            messages.addAll(receive(url, 1));
        }
        assertThat(messages).as("messages on %s%s", queue, deadLetter ? "-dlq" : "").hasSize(count);
        return messages;
    }

    /**
     * Asserts nothing (more) is on the queue. Called once the intake is done with the message (its outcome was seen),
     * so one long poll suffices: the intake publishes before it returns.
     */
    void assertNothingOn(String queue) {
        assertThat(receive(stack.queueUrl(queue), 1)).as("messages on %s", queue).isEmpty();
    }

    /**
     * Every further dead-lettered copy, once the intake has taken every message off {@code submissions}: a receive the
     * queue repeated (a handler stalled past the visibility) leaves its own copy.
     */
    List<Message> remainingDeadLetters() {
        awaitSubmissionsHandled();
        return receive(stack.deadLetterQueueUrl(QueuesConfig.SUBMISSIONS), 1);
    }

    void assertNoDeadLetters() {
        assertThat(receive(stack.deadLetterQueueUrl(QueuesConfig.SUBMISSIONS), 1)).as("dead letters").isEmpty();
    }

    /** Waits until the intake has taken every message off {@code submissions} (handled or dead-lettered). */
    void awaitSubmissionsHandled() {
        String url = stack.queueUrl(QueuesConfig.SUBMISSIONS);
        Awaitility.await("the intake takes every message off the submissions queue").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    var attributes = stack.sqs().getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings(
                            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"))
                            .attributesAsStrings();
                    return "0".equals(attributes.get("ApproximateNumberOfMessages"))
                            && "0".equals(attributes.get("ApproximateNumberOfMessagesNotVisible"));
                });
    }

    private List<Message> receive(String url, int waitSeconds) {
        var received = stack.sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10)
                .waitTimeSeconds(waitSeconds).messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
        received.forEach(m -> stack.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle())));
        return received;
    }

    static String attribute(Message message, String name) {
        var value = message.messageAttributes().get(name);
        return value == null ? null : value.stringValue();
    }

    Map<String, AttributeValue> record(String table, long teamId, long submissionPk) {
        return stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true)
                .key(Map.of("team_id", AttributeValue.fromS(Long.toString(teamId)),
                        "submission_id", AttributeValue.fromS(Long.toString(submissionPk)))))
                .item();
    }

    /** What results-relay does when the Job reports: the record moves on. */
    void setStatus(String table, long teamId, long submissionPk, String status) {
        stack.dynamoDb().updateItem(r -> r.tableName(table)
                .key(Map.of("team_id", AttributeValue.fromS(Long.toString(teamId)),
                        "submission_id", AttributeValue.fromS(Long.toString(submissionPk))))
                .updateExpression("SET submission_status = :s, end_time = :e")
                .expressionAttributeValues(Map.of(":s", AttributeValue.fromS(status),
                        ":e", AttributeValue.fromS(Instant.now().toString()))));
    }

    void qualify(long teamId, String trackCodename) {
        stack.dynamoDb().putItem(r -> r.tableName(stack.evaluation().qualifierTable())
                .item(Map.of("team_id", AttributeValue.fromS(Long.toString(teamId)),
                        "track_codename", AttributeValue.fromS(trackCodename),
                        "submission_id", AttributeValue.fromS("1"))));
    }

    /** What results-relay does when a Job failed past its retries: EvalAI shows the submission failed. */
    void failOnEvalAi(long challengePk, long phasePk, long submissionPk) throws Exception {
        String token = stack.quarkusConfig().get("evalai.token");
        String body = "{\"submission\":" + submissionPk + ",\"challenge_phase\":" + phasePk
                + ",\"submission_status\":\"failed\",\"stdout\":\"\",\"stderr\":\"crashed\",\"metadata\":\"\"}";
        var request = HttpRequest.newBuilder(URI.create(stack.evalAi().url() + "/api/jobs/challenge/" + challengePk
                + "/update_submission/")).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build();
        var response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    /** The value of one series on /q/metrics; 0 when it does not exist yet. */
    static double metric(String name, String... labels) {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        var selector = new StringBuilder();
        for (int i = 0; i < labels.length; i += 2) {
            selector.append("(?=[^}]*").append(labels[i]).append("=\"").append(Pattern.quote(labels[i + 1]))
                    .append("\")");
        }
        String series = labels.length == 0 ? "(?:\\{[^}]*\\})?" : "\\{" + selector + "[^}]*\\}";
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + series + " ([0-9.eE+-]+)$")
                .matcher(text);
        double total = 0;
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
        }
        return total;
    }
}
