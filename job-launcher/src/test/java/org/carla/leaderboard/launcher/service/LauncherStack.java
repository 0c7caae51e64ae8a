package org.carla.leaderboard.launcher.service;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.carla.leaderboard.localstack.testing.LocalStackResource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/**
 * The stories' local stack: ElasticMQ, DynamoDB Local and the API server without its Job runner (the test writes Job
 * and pod status as the controller and the kubelet would). The launcher talks to it as its ServiceAccount, under the
 * RBAC of deploy/. One set of init args for every class that plays the cluster itself: one Quarkus start for them all.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@WithTestResource(value = LocalStackResource.class, initArgs = {
        @ResourceArg(name = "components", value = "sqs,dynamodb,kubernetes"),
        @ResourceArg(name = "local-stack.kubernetes.job-runner", value = "off") })
@interface LauncherStack {
}
