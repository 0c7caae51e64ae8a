package org.carla.leaderboard.messaging;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The real SQS client (ElasticMQ) with a fault on its receives, for what no server does on its own: a receive that
 * throws something other than the SDK's exceptions, or never returns whatever timeout it was given; or with slow sends.
 */
final class FaultySqs {

    private final SqsClient real;
    private final AtomicInteger receives = new AtomicInteger();
    private volatile Supplier<Throwable> failure;
    private volatile CountDownLatch hang;
    private volatile Duration sendDelay = Duration.ZERO;

    FaultySqs(SqsClient real) {
        this.real = real;
    }

    SqsClient client() {
        return (SqsClient) Proxy.newProxyInstance(SqsClient.class.getClassLoader(), new Class<?>[] { SqsClient.class },
                (proxy, method, args) -> {
                    if (method.getName().equals("receiveMessage")) {
                        receives.incrementAndGet();
                        Supplier<Throwable> fault = failure;
                        if (fault != null) {
                            throw fault.get();
                        }
                        CountDownLatch gate = hang;
                        if (gate != null) {
                            gate.await();
                        }
                    }
                    if (method.getName().equals("sendMessage")) {
                        Thread.sleep(sendDelay.toMillis());
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Every receive from now on throws what {@code fault} makes. */
    void failReceives(Supplier<Throwable> fault) {
        failure = fault;
    }

    /** Every receive from now on blocks until {@link #release()}. */
    void hangReceives() {
        hang = new CountDownLatch(1);
    }

    /** Every send from now on takes {@code delay} before it reaches the server. */
    void slowSends(Duration delay) {
        sendDelay = delay;
    }

    void release() {
        CountDownLatch gate = hang;
        hang = null;
        failure = null;
        if (gate != null) {
            gate.countDown();
        }
    }

    int receives() {
        return receives.get();
    }
}
