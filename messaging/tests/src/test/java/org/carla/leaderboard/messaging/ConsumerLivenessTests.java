package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Liveness tells a consumer whose polling thread died or is wedged (only a restart mends it) from one whose queue is
 * down (a restart would not help), against ElasticMQ.
 */
@ExtendWith(ElasticMq.class)
class ConsumerLivenessTests {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RunningStack stack = ElasticMq.stack();
    final QueueBinding queue = ElasticMq.emptied(QueuesConfig.LAUNCH_REQUESTS);
    final FaultySqs faulty = new FaultySqs(stack.sqs());
    QueueConsumers consumers;

    @AfterEach
    void stop() {
        faulty.release();
        if (consumers != null) {
            consumers.close();
        }
    }

    /** A one-second long poll and a four-second margin: wedged after five seconds without a poll-loop step. */
    static ConsumerOptions options() {
        return ConsumerOptions.defaults().withWaitTime(Duration.ofSeconds(1)).withVisibilityTimeout(Duration.ofSeconds(2))
                .withLivenessMargin(Duration.ofSeconds(4));
    }

    QueueConsumers consume(SqsClient sqs, MessageHandler handler) {
        consumers = QueueConsumers.of(new QueueConsumer(sqs, queue, handler, options(), registry));
        return consumers;
    }

    @Test
    void notLiveBeforeTheStartNorAfterTheStop() {
        consume(stack.sqs(), message -> { });
        assertThat(liveness().getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(liveness().getData().orElseThrow()).containsEntry(queue.name(), "stopped");

        consumers.start();
        assertThat(consumers.live()).isTrue();
        consumers.close();
        assertThat(consumers.live()).isFalse();
    }

    @Test
    void liveWhilePollingEvenWithEveryHandlerBusyLongerThanTheBound() {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        var release = new java.util.concurrent.CountDownLatch(1);
        consumers = QueueConsumers.of(new QueueConsumer(stack.sqs(), queue, message -> {
            release.await();
            handled.add(message.body());
        }, options().withMaxInFlight(1), registry));
        consumers.start();
        stack.sqs().sendMessage(r -> r.queueUrl(queue.url()).messageBody("slow"));
        await().atMost(ElasticMq.PATIENCE).until(() -> consumers.states().get(0).inFlight() == 1);

        // No free slot for longer than the bound: the loop still steps, so it is not wedged.
        await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(8)).until(consumers::live);
        release.countDown();
        await().atMost(ElasticMq.PATIENCE).until(() -> handled.contains("slow"));
        assertThat(liveness().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat((String) liveness().getData().orElseThrow().get(queue.name())).startsWith("polling, last poll");
    }

    @Test
    void aPollingThreadKilledByAnErrorFailsLiveness() {
        consume(faulty.client(), message -> { });
        consumers.start();
        assertThat(consumers.live()).isTrue();

        faulty.failReceives(() -> new StackOverflowError("deep inside the SDK"));

        // The Error ends the thread uncaught, as it would in production: not a failure of the test itself.
        await().dontCatchUncaughtExceptions().atMost(ElasticMq.PATIENCE)
                .until(() -> !consumers.states().get(0).pollerAlive());
        assertThat(consumers.live()).isFalse();
        var liveness = liveness();
        assertThat(liveness.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(liveness.getData().orElseThrow()).containsEntry(queue.name(), "polling thread dead");
    }

    @Test
    void aPollingThreadThatStopsSteppingFailsLivenessAfterTheLongPollAndTheMargin() {
        consume(faulty.client(), message -> { });
        consumers.start();
        // A receive that ignores its timeout and never returns.
        faulty.hangReceives();

        await().atMost(ElasticMq.PATIENCE).until(() -> !consumers.live());
        ConsumerState state = consumers.states().get(0);
        assertThat(state.pollerAlive()).isTrue();
        assertThat(state.sinceLastPoll()).isGreaterThan(state.stalledAfter());
        assertThat((String) liveness().getData().orElseThrow().get(queue.name())).startsWith("wedged: ");

        faulty.release();
        await().atMost(ElasticMq.PATIENCE).until(consumers::live);
    }

    @Test
    void anErrorThatIsNotTheSdksPausesThePollingInsteadOfSpinning() {
        consume(faulty.client(), message -> { });
        faulty.failReceives(() -> new IllegalStateException("a bug in a request interceptor"));
        consumers.start();
        await().atMost(ElasticMq.PATIENCE).until(() -> faulty.receives() >= 1);

        // Pauses of 0.5, 1, 2 and 2 s (half the margin): a handful of receives in three seconds, not thousands.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> faulty.receives() <= 8);
        assertThat(consumers.live()).isTrue();
        assertThat(consumers.states().get(0).queueReachable()).isFalse();

        faulty.release();
        await().atMost(ElasticMq.PATIENCE).until(() -> consumers.states().get(0).queueReachable());
    }

    @Test
    void aQueueThatNeverAnswersKeepsTheConsumerLiveAndSaysSo() throws IOException {
        try (var blackHole = new BlackHole();
                SqsClient sqs = AwsClients.client(SqsClient.builder(), blackHole.endpoint(), stack.credentials(),
                        stack.region())) {
            var unreachable = new QueueBinding(queue.name(), blackHole.endpoint() + "/000000000000/launch-requests",
                    blackHole.endpoint() + "/000000000000/launch-requests-dlq");
            consumers = QueueConsumers.of(new QueueConsumer(sqs, unreachable, message -> { }, options(), registry));
            consumers.start();

            // Each receive is bounded (the long poll plus half the margin), so the loop goes on stepping.
            await().atMost(ElasticMq.PATIENCE).until(() -> !consumers.states().get(0).queueReachable());
            await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(8)).until(consumers::live);
            assertThat(liveness().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
            assertThat((String) liveness().getData().orElseThrow().get(queue.name()))
                    .contains("queue unreachable since");
            consumers.close();
        }
    }

    HealthCheckResponse liveness() {
        return consumers.liveness().call();
    }

    /** A server that accepts connections and never answers: a frozen SQS as its clients see it. */
    static final class BlackHole implements AutoCloseable {

        private final ServerSocket server;
        private final List<Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();

        BlackHole() throws IOException {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread accept = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        held.add(server.accept());
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "black-hole");
            accept.setDaemon(true);
            accept.start();
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : held) {
                socket.close();
            }
        }
    }
}
