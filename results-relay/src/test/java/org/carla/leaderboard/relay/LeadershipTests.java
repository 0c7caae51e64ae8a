package org.carla.leaderboard.relay;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.carla.leaderboard.relay.ResultsRelayTests.SENSORS;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.evalai.RecordedCall;
import org.carla.leaderboard.localstack.testing.InjectLocalStack;
import org.carla.leaderboard.relay.lease.Leadership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The relay with the Lease on, against the local stack's API server (component {@code kubernetes}): while another
 * replica holds the Lease {@code results-relay} and renews it, this relay is a healthy standby that consumes nothing
 * and calls nothing on EvalAI (the cancel check on its schedule included); once the other stops renewing, this one
 * takes the Lease and handles what waited on the queue.
 */
@QuarkusTest
@TestProfile(LeadershipTests.LeaseOn.class)
@RelayStack
class LeadershipTests {

    static final String NAMESPACE = "leaderboard";
    static final String OTHER = "results-relay-other-1";
    static final Duration DURATION = Duration.ofSeconds(6);
    static final Duration PATIENCE = Duration.ofSeconds(90);

    @InjectLocalStack
    RunningStack stack;

    @Inject
    Leadership leadership;

    private final ScheduledExecutorService otherReplica = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTheOtherReplica() {
        otherReplica.shutdownNow();
    }

    @Test
    void aStandbyConsumesNothingAndCallsNothingUntilTheOtherReplicasLeaseLapses() {
        await().atMost(PATIENCE).until(leadership::active);

        // the other replica takes the Lease (as after a partition) and keeps it renewed
        await().atMost(PATIENCE).ignoreExceptionsInstanceOf(KubernetesClientException.class)
                .until(() -> holdAsOther() != null);
        otherReplica.scheduleWithFixedDelay(() -> {
            try {
                holdAsOther();
            } catch (KubernetesClientException e) {
                // a conflict: again at the next renewal
            }
        }, 1, 1, TimeUnit.SECONDS);
        await().atMost(PATIENCE).until(() -> !leadership.active());
        Instant standby = Instant.now();

        given().when().get("/q/health").then().statusCode(200).body("status", equalTo("UP"));
        given().when().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'relay-lease' }.data.role", equalTo("standby"))
                .body("checks.find { it.name == 'relay-lease' }.data.holder", equalTo(OTHER));
        given().when().get("/q/metrics").then().statusCode(200).body(org.hamcrest.Matchers.containsString(
                "relay_active 0.0"));

        var submission = GivenSubmission.submitted(stack, SENSORS).results(Map.of());
        submission.send(submission.jobStarted());

        await().during(Duration.ofSeconds(5)).atMost(PATIENCE).until(() -> submission.recordStatus().equals("SUBMITTED")
                && since(standby).isEmpty());

        // the other replica stops renewing without a goodbye: its Lease lapses and this relay takes it
        otherReplica.shutdownNow();
        await().atMost(PATIENCE).until(leadership::active);
        await().atMost(PATIENCE).until(() -> submission.recordStatus().equals("RUNNING"));
        await().atMost(PATIENCE).until(() -> !EvalAiCalls.runningUpdates(stack.evalAi().calls(), submission.pk())
                .isEmpty());
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(leadership.identity());
        given().when().get("/q/health/well").then().statusCode(200)
                .body("checks.find { it.name == 'relay-lease' }.data.role", equalTo("active"))
                .body("checks.name", hasItem("relay-lease"));
    }

    /** Every EvalAI call since then: the cancel check's lists, status reads, updates. */
    private List<RecordedCall> since(Instant when) {
        return stack.evalAi().calls().stream().filter(call -> call.time().isAfter(when)).toList();
    }

    private Lease lease() {
        return stack.kubernetes().leases().inNamespace(NAMESPACE).withName("results-relay").get();
    }

    /** Writes the Lease as the other replica holding it (resourceVersion-locked: a conflict throws). */
    private Lease holdAsOther() {
        var lease = lease();
        lease.getSpec().setHolderIdentity(OTHER);
        lease.getSpec().setLeaseDurationSeconds((int) DURATION.toSeconds());
        lease.getSpec().setRenewTime(ZonedDateTime.now());
        return stack.kubernetes().leases().inNamespace(NAMESPACE).resource(lease).update();
    }

    /** The Lease on, with short timings; the cancel check on its schedule, so a standby that listed would show. */
    public static class LeaseOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("relay.leadership.duration", DURATION.toSeconds() + "s",
                    "relay.leadership.renew-deadline", "4s", "relay.leadership.retry-period", "1s",
                    "relay.cancel-check.every", "10s");
        }
    }
}
