package org.carla.leaderboard.ingest;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test of the intake on the local stack ({@link IntakeLocalStack}): the queues are emptied and EvalAI's faults cleared
 * around each test, so a test sees only what it caused.
 */
@IntakeLocalStack
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
