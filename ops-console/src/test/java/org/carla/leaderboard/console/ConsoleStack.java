package org.carla.leaderboard.console;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.carla.leaderboard.localstack.testing.LocalStackResource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/**
 * The console's tests' local stack: ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI stand-in and the API server without
 * its Job runner (the tests write the Jobs and pods as job-launcher and the kubelet leave them); phase 2076's routes are
 * claimed from a route ledger. One set of init args for every test class: one Quarkus start and one stack for them all.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,s3,evalai,kubernetes"),
        @ResourceArg(name = "local-stack.evalai.throttle-period", value = "PT5S"),
        @ResourceArg(name = "local-stack.kubernetes.job-runner", value = "off"),
        @ResourceArg(name = "evaluation.phases.2076.schedule", value = "dynamic") })
@interface ConsoleStack {
}
