package org.carla.leaderboard.localstack.evalai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionAnnounced;
import org.carla.leaderboard.localstack.EvalAiComponent;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The stand-in publishing on the stack's real {@code submissions} queue (ElasticMQ), as EvalAI publishes on a
 * challenge's host queue: with the keys of deploy/aws's IAM user for it, looking the queue up by name; read back with
 * the SQS SDK.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvalAiQueueIT {

    private static final String IMAGE = "registry.example/team-3/agent:crash";

    private static RunningStack stack;
    private static SqsClient hostKeys;
    private static EvalAiStandIn evalAi;
    private static Path workDir;

    @BeforeAll
    static void start() throws IOException {
        workDir = Files.createDirectories(Path.of("target", "evalai-queue-it", Long.toString(System.nanoTime())));
        stack = LocalStack.builder().components("sqs").workDir(workDir).start();
        String user = stack.access().deployment().outputs().get(EvalAiComponent.QUEUE_USER_OUTPUT);
        hostKeys = AwsClients.client(SqsClient.builder(), stack.endpoints().get("sqs"), stack.access().user(user),
                stack.region());
        evalAi = EvalAiStandIn.start(EvalAiOptions.builder("queue-test-token",
                new SqsSubmissionPublisher(hostKeys, "submissions")).challengePk(4).build());
    }

    @AfterAll
    static void stop() {
        if (evalAi != null) {
            evalAi.close();
        }
        if (hostKeys != null) {
            hostKeys.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void createPublishesEvalAiMessagesOnTheSubmissionsQueueLookingItUpByName() throws IOException {
        SubmissionView created = evalAi.createSubmission(NewSubmission.of(3, "Team Three", 2077, IMAGE));
        Message first = receiveOne();
        assertThat(first.body()).isEqualTo("{\"challenge_pk\":4,\"phase_pk\":2077,"
                + "\"is_static_dataset_code_upload_submission\":false,\"submitted_image_uri\":\"" + IMAGE
                + "\",\"submission_pk\":" + created.pk() + "}");
        assertThat(EventCodec.parseAnnouncement(first.body()))
                .isEqualTo(new SubmissionAnnounced(4, 2077, created.pk(), IMAGE, false));

        SubmissionView asStrings = evalAi.createSubmission(
                NewSubmission.of(3, "Team Three", 2075, IMAGE).withPksAsStrings(true));
        assertThat(EventCodec.parseAnnouncement(receiveOne().body()))
                .isEqualTo(new SubmissionAnnounced(4, 2075, asStrings.pk(), IMAGE, false));
        assertThat(Files.readAllLines(workDir.resolve("sqs/access.log")))
                .anyMatch(line -> line.contains("ALLOW\tcarla-leaderboard-evalai-queue\tsqs:GetQueueUrl\t"))
                .anyMatch(line -> line.contains("ALLOW\tcarla-leaderboard-evalai-queue\tsqs:SendMessage\t"));
    }

    /**
     * EvalAI creates the queue when its lookup fails; its IAM user may not, so a missing queue fails the announcement
     * (the submission is not made, EvalAI logs "Cannot get queue") instead of creating a queue nobody consumes.
     */
    @Test
    @Order(2)
    void aMissingQueueFailsTheAnnouncementAndEvalAiCannotCreateOneNobodyConsumes() {
        stack.sqs().deleteQueue(r -> r.queueUrl(stack.queueUrl("submissions")));

        assertThatThrownBy(() -> evalAi.createSubmission(NewSubmission.of(3, "Team Three", 2077, IMAGE)))
                .isInstanceOfSatisfying(SqsException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    assertThat(e.getMessage()).contains("sqs:CreateQueue");
                });
        assertThat(stack.sqs().listQueues().queueUrls()).noneMatch(url -> url.endsWith("/submissions"));
    }

    private Message receiveOne() {
        String queue = stack.queueUrl("submissions");
        List<Message> messages = stack.sqs().receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10)
                .waitTimeSeconds(10)).messages();
        assertThat(messages).hasSize(1);
        stack.sqs().deleteMessage(r -> r.queueUrl(queue).receiptHandle(messages.get(0).receiptHandle()));
        return messages.get(0);
    }
}
