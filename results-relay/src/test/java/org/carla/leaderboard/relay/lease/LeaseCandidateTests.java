package org.carla.leaderboard.relay.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.localstack.kubernetes.KubernetesApiServer;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Two relays standing for one Lease on the local stack's API server (fabric8's server in CRUD mode, which answers
 * 409 to a write with a stale resourceVersion as a real one does), each as the relay's ServiceAccount, under the Role
 * deploy/ gives it: one is active at a time; a holder that dies without
 * a goodbye is replaced once its Lease lapses, not before; one that closes releases it and is replaced at once.
 */
class LeaseCandidateTests {

    static final String NAMESPACE = "leaderboard";
    /** Long enough that a release is told apart from a lapse on a loaded machine; short enough for a test. */
    static final Duration DURATION = Duration.ofSeconds(10);
    static final Duration PATIENCE = Duration.ofSeconds(90);
    /** A Lease's time as client-go writes it (RFC 3339 with microseconds). */
    private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX");

    private KubernetesApiServer server;
    /** The test's own view of the API server. */
    private KubernetesClient observer;
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<LeaseCandidate> candidates = new ArrayList<>();

    /** One relay's terms as it lived them. */
    static final class Relay implements LeaseCandidate.Terms {
        final AtomicInteger begun = new AtomicInteger();
        final AtomicInteger ended = new AtomicInteger();
        volatile Instant begunAt;
        volatile Instant endedAt;

        @Override
        public void begin() {
            begunAt = Instant.now();
            begun.incrementAndGet();
        }

        @Override
        public void end() {
            endedAt = Instant.now();
            ended.incrementAndGet();
        }

        boolean active() {
            return begun.get() > ended.get();
        }
    }

    @BeforeEach
    void startTheApiServer() {
        server = KubernetesApiServer.start(0);
        observer = server.newClient();
        clients.add(observer);
    }

    @AfterEach
    void stop() {
        candidates.forEach(LeaseCandidate::close);
        clients.forEach(KubernetesClient::close);
        server.close();
    }

    /**
     * A client set as the relay's (application.properties), as its ServiceAccount, whose Role the API server enforces:
     * one attempt per call, bounded, so a holder cut off stands down within the renew deadline plus one call.
     */
    private KubernetesClient client() {
        var relay = ServiceAccount.ofClassPath(getClass().getClassLoader()).orElseThrow();
        var client = new KubernetesClientBuilder().withConfig(server.clientConfig(relay)
                .withRequestTimeout(1000).withConnectionTimeout(1000).withRequestRetryBackoffLimit(0).build()).build();
        clients.add(client);
        return client;
    }

    private LeaseCandidate candidate(KubernetesClient client, String identity, Relay relay) {
        var candidate = new LeaseCandidate(client, new LeaseCandidate.Settings(NAMESPACE, "results-relay", identity,
                DURATION, Duration.ofSeconds(7), Duration.ofMillis(500)), relay);
        candidates.add(candidate);
        candidate.start();
        return candidate;
    }

    private Lease lease() {
        return observer.leases().inNamespace(NAMESPACE).withName("results-relay").get();
    }

    @Test
    void oneOfTwoIsActiveAndADeadHoldersLeaseIsTakenOnlyOnceItLapsed() {
        var firstClient = client();
        var first = new Relay();
        var second = new Relay();
        var a = candidate(firstClient, "relay-a-1", first);
        await().atMost(PATIENCE).until(a::holding);
        var b = candidate(client(), "relay-b-1", second);
        await().atMost(PATIENCE).until(() -> b.holder().filter("relay-a-1"::equals).isPresent());
        // b has seen a's Lease several renewals long: it stands by
        await().during(Duration.ofSeconds(3)).atMost(PATIENCE).until(() -> first.active() && !second.active());
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("relay-a-1");

        // SIGKILL: a's connection to the API server is gone, no release
        firstClient.close();
        Instant lastRenewal = lease().getSpec().getRenewTime().toInstant();

        await().atMost(PATIENCE).until(second::active);
        assertThat(second.begunAt).as("taken once the Lease lapsed, not before")
                .isAfterOrEqualTo(lastRenewal.plus(DURATION));
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("relay-b-1");
        assertThat(second.begun.get()).isEqualTo(1);
    }

    @Test
    void aHolderCutOffFromTheApiServerStandsDownBeforeItsLeaseLapsesAndStandsAgainWhenItIsBack() {
        var relay = new Relay();
        var a = candidate(client(), "relay-a-4", relay);
        await().atMost(PATIENCE).until(a::holding);
        int port = server.port();
        Instant lastRenewal = lease().getSpec().getRenewTime().toInstant();

        server.close();

        await().atMost(PATIENCE).until(() -> !relay.active());
        assertThat(a.holding()).isFalse();
        assertThat(relay.endedAt).as("stood down (renew deadline) before another could take the Lease")
                .isBefore(lastRenewal.plus(DURATION));

        // the API server is back (empty, as after a restore): a takes the Lease again in a new term
        server = KubernetesApiServer.start(port);
        await().atMost(PATIENCE).until(() -> relay.begun.get() == 2 && relay.active());
    }

    @Test
    void aClosedHolderReleasesAndTheOtherTakesOverWithoutWaitingForTheLapse() {
        var first = new Relay();
        var second = new Relay();
        var a = candidate(client(), "relay-a-2", first);
        await().atMost(PATIENCE).until(a::holding);
        candidate(client(), "relay-b-2", second);
        await().during(Duration.ofSeconds(2)).atMost(PATIENCE).until(() -> first.active() && !second.active());

        a.close();
        Instant closed = Instant.now();
        Instant lastRenewal = lease().getSpec().getRenewTime().toInstant();

        assertThat(first.active()).as("its term ended with the close").isFalse();
        await().atMost(PATIENCE).until(second::active);
        assertThat(second.begunAt).as("released: taken before it would have lapsed")
                .isBefore(lastRenewal.plus(DURATION)).isAfterOrEqualTo(closed);
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("relay-b-2");
        assertThat(server.unusedGrants(ServiceAccount.ofClassPath(getClass().getClassLoader()).orElseThrow()))
                .as("the relay's Role grants exactly what a Lease's life uses: create, get, renew, release").isEmpty();
    }

    @Test
    void aHolderWhoseLeaseWasTakenStandsDownAndStandsAgain() {
        var relay = new Relay();
        var client = client();
        var a = candidate(client, "relay-a-3", relay);
        await().atMost(PATIENCE).until(a::holding);

        // another holder wrote over it (a partition healed the wrong way): a's renewals fail, it stands down. A patch
        // without a resourceVersion, so a's renewal in the same instant cannot turn it into a conflict
        String renewed = MICRO_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        observer.leases().inNamespace(NAMESPACE).withName("results-relay").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"holderIdentity\":\"relay-c-3\",\"renewTime\":\"" + renewed + "\"}}");

        await().atMost(PATIENCE).until(() -> !relay.active());
        assertThat(a.holder()).contains("relay-c-3");
        // nobody renews relay-c-3's Lease: a takes it again once it lapsed, in a new term
        await().atMost(PATIENCE).until(() -> relay.begun.get() == 2 && relay.active());
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("relay-a-3");
    }
}
