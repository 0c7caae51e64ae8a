package org.carla.leaderboard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.PATIENCE;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;

import java.util.Map;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** The cancel check on its schedule: a run that sends nothing at all (its pod waits for capacity) is still cancelled. */
@QuarkusTest
@TestProfile(CancelCadenceTests.EverySecond.class)
@QuarkusTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai"),
        @ResourceArg(name = "evaluation.phases.2078.hide-logs", value = "true") })
class CancelCadenceTests {

    @InjectLocalStack
    RunningStack stack;

    @Test
    void aCancelOfARunWaitingForCapacityIsNoticedWithNoEventAtAll() {
        var given = GivenSubmission.submitted(stack, SENSORS).pending();

        stack.evalAi().cancel(given.pk());

        await().atMost(PATIENCE).until(given::cancelControl);
        assertThat(given.record().get(SubmissionTable.CANCEL_REQUESTED_RUN).n()).isEqualTo("1");
        assertThat(given.recordStatus()).isEqualTo("PENDING");
    }

    public static class EverySecond implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("relay.cancel-check.every", "1s");
        }
    }
}
