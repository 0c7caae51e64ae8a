package org.carla.leaderboard.ingest;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.carla.leaderboard.localstack.testing.LocalStackResource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/**
 * The intake's tests' local stack: ElasticMQ, DynamoDB Local and the EvalAI stand-in, EvalAI's throttle minute
 * compressed to 5 s. One set of init args for every test class, so that classes with the same test profile share one
 * Quarkus start and one stack.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,evalai"),
        @ResourceArg(name = "local-stack.evalai.throttle-period", value = "PT5S") })
@interface IntakeLocalStack {
}
