package org.carla.leaderboard.ingest;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.localstack.testing.LocalStackResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;

/**
 * A test of the intake on the local stack's ElasticMQ, DynamoDB Local and EvalAI stand-in (one stack for the module's
 * tests; EvalAI's throttle minute compressed to 5 s): the queues are emptied and EvalAI's faults cleared around each test, so a test sees only what it caused.
 */
@QuarkusTestResource(value = LocalStackResource.class,
        initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,evalai"),
        @ResourceArg(name = "local-stack.evalai.throttle-period", value = "PT5S") })
abstract class IntakeOnTheStack {

    @InjectLocalStack
    RunningStack stack;

    IntakeStack intake;

    @BeforeEach
    void purge() {
        intake = new IntakeStack(stack);
        intake.purge();
    }

    @AfterEach
    void clearFaults() {
        stack.evalAi().clearFaults();
    }
}
