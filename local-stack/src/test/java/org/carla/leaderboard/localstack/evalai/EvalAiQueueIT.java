package org.carla.leaderboard.localstack.evalai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.SubmissionAnnounced;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.sqs.model.Message;

/** The stand-in publishing on the stack's real {@code submissions} queue (ElasticMQ), read back with the SQS SDK. */
class EvalAiQueueIT {

    private static final String IMAGE = "registry.example/team-3/agent:crash";

    private static RunningStack stack;
    private static EvalAiStandIn evalAi;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("sqs").start();
        evalAi = EvalAiStandIn.start(EvalAiOptions.builder("queue-test-token",
                new SqsSubmissionPublisher(stack.sqs(), stack.queueUrl("submissions"))).challengePk(4).build());
    }

    @AfterAll
    static void stop() {
        if (evalAi != null) {
            evalAi.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void createPublishesEvalAiMessagesOnTheSubmissionsQueue() {
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
