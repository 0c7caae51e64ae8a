package org.carla.leaderboard.relay;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.carla.leaderboard.localstack.testing.LocalStackResource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/**
 * The relay's tests' local stack: ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI stand-in (its throttle minute
 * compressed to 1 s) and the API server; phase 2078 hides its logs, phase 2076's routes are claimed. One set of init
 * args for every test class, so that classes with the same test profile share one Quarkus start and one stack.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai,kubernetes"),
        @ResourceArg(name = "local-stack.evalai.throttle-period", value = "PT1S"),
        @ResourceArg(name = "evaluation.phases.2078.hide-logs", value = "true"),
        @ResourceArg(name = "evaluation.phases.2076.schedule", value = "dynamic") })
@interface RelayStack {
}
