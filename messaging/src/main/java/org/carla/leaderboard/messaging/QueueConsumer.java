package org.carla.leaderboard.messaging;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.carla.leaderboard.domain.event.MalformedEventException;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Consumes one SQS queue: long polling, up to ten messages a receive, at most {@code maxInFlight} handled at once,
 * each message's visibility extended while it is still being handled. A message is deleted only after its handler
 * returned; a message that can never succeed goes to the dead-letter queue at once with the reason as message
 * attributes; one that failed for a passing reason returns to the queue after a back-off, and is dead-lettered with
 * the last error when it has been received {@code maxReceives} times. Nothing is lost: a message is deleted from the
 * queue only after it was handled or after its dead-letter copy was sent.
 */
public final class QueueConsumer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(QueueConsumer.class);
    private static final int MAX_ERROR_LENGTH = 1000;

    private final SqsClient sqs;
    private final QueueBinding queue;
    private final MessageHandler handler;
    private final ConsumerOptions options;
    private final MeterRegistry registry;
    private final Semaphore slots;
    private final ExecutorService workers;
    private final ScheduledExecutorService heartbeats;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Counter received;
    private volatile boolean running;
    private volatile boolean outage;
    private Thread poller;

    public QueueConsumer(SqsClient sqs, QueueBinding queue, MessageHandler handler, ConsumerOptions options,
            MeterRegistry registry) {
        this.sqs = sqs;
        this.queue = queue;
        this.handler = handler;
        this.options = options;
        this.registry = registry;
        this.slots = new Semaphore(options.maxInFlight());
        this.workers = Executors.newFixedThreadPool(options.maxInFlight(), named(queue.name() + "-handler"));
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(named(queue.name() + "-visibility"));
        this.received = Counter.builder("leaderboard.queue.received").tag("queue", queue.name())
                .description("Messages received from the queue").register(registry);
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        poller = named(queue.name() + "-poller").newThread(this::poll);
        poller.start();
        LOG.infof("consuming queue %s (%d in flight, long polling %ds, visibility %ds)", queue.name(),
                options.maxInFlight(), options.waitTime().toSeconds(), options.visibilityTimeout().toSeconds());
    }

    /** Messages being handled right now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Whether the queue answers: a cheap attribute read, for readiness checks. */
    public boolean reachable() {
        try {
            sqs.getQueueAttributes(r -> r.queueUrl(queue.url()).attributeNames(QueueAttributeName.QUEUE_ARN));
            return true;
        } catch (SdkException e) {
            return false;
        }
    }

    public QueueBinding queue() {
        return queue;
    }

    /** Stops receiving, lets the messages in hand finish (bounded by the visibility timeout), then stops. */
    @Override
    public void close() {
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
        }
        poller.interrupt();
        workers.shutdown();
        try {
            if (!workers.awaitTermination(options.visibilityTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warnf("queue %s: %d messages still in hand at shutdown; they return to the queue", queue.name(),
                        inFlight.get());
                workers.shutdownNow();
            }
            poller.join(options.waitTime().toMillis() + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        heartbeats.shutdownNow();
    }

    private void poll() {
        Duration pause = Duration.ofMillis(500);
        while (running) {
            int taken = 0;
            try {
                slots.acquire();
                taken = 1;
                while (taken < 10 && slots.tryAcquire()) {
                    taken++;
                }
                int wanted = taken;
                List<Message> messages = sqs.receiveMessage(r -> r.queueUrl(queue.url())
                        .maxNumberOfMessages(wanted)
                        .waitTimeSeconds((int) options.waitTime().toSeconds())
                        .visibilityTimeout((int) options.visibilityTimeout().toSeconds())
                        .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                                MessageSystemAttributeName.SENT_TIMESTAMP))
                        .messages();
                if (outage) {
                    outage = false;
                    LOG.infof("queue %s reachable again", queue.name());
                }
                pause = Duration.ofMillis(500);
                slots.release(taken - messages.size());
                taken = 0;
                for (Message message : messages) {
                    received.increment();
                    inFlight.incrementAndGet();
                    workers.execute(() -> handleInSlot(message));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                slots.release(taken);
                return;
            } catch (SdkException e) {
                slots.release(taken);
                if (!running) {
                    return;
                }
                if (!outage) {
                    outage = true;
                    LOG.errorf("queue %s unreachable, retrying with back-off: %s", queue.name(), e.getMessage());
                }
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                pause = pause.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30)
                        : pause.multipliedBy(2);
            } catch (RuntimeException e) {
                slots.release(taken);
                LOG.errorf(e, "queue %s: unexpected error while polling", queue.name());
            }
        }
    }

    private void handleInSlot(Message message) {
        try {
            handle(message);
        } finally {
            inFlight.decrementAndGet();
            slots.release();
        }
    }

    private void handle(Message message) {
        int receiveCount = receiveCount(message);
        var received = new ReceivedMessage(message.messageId(), message.body(), receiveCount, sentAt(message));
        long halfVisibility = Math.max(1, options.visibilityTimeout().toMillis() / 2);
        ScheduledFuture<?> heartbeat = heartbeats.scheduleAtFixedRate(() -> extend(message), halfVisibility,
                halfVisibility, TimeUnit.MILLISECONDS);
        Timer.Sample sample = Timer.start(registry);
        String outcome;
        try {
            handler.handle(received);
            heartbeat.cancel(false);
            delete(message);
            outcome = "done";
        } catch (MalformedEventException e) {
            heartbeat.cancel(false);
            outcome = deadLetter(message, receiveCount, "malformed-" + e.reason().tag(), e.getMessage());
        } catch (RejectedMessageException e) {
            heartbeat.cancel(false);
            outcome = deadLetter(message, receiveCount, e.reason(), e.getMessage());
        } catch (Exception e) {
            heartbeat.cancel(false);
            if (receiveCount >= options.maxReceives()) {
                outcome = deadLetter(message, receiveCount, "retries-exhausted", describe(e));
            } else {
                Duration backoff = options.backoffAfter(receiveCount);
                LOG.warnf("queue %s: message %s failed (attempt %d of %d), retrying in %ds: %s", queue.name(),
                        message.messageId(), receiveCount, options.maxReceives(), backoff.toSeconds(),
                        printable(describe(e)));
                makeVisibleAfter(message, backoff);
                outcome = "retry";
            }
        } finally {
            heartbeat.cancel(false);
        }
        sample.stop(Timer.builder("leaderboard.queue.handling").tag("queue", queue.name()).tag("outcome", outcome)
                .description("Time to handle one message").register(registry));
    }

    private String deadLetter(Message message, int receiveCount, String reason, String error) {
        try {
            sqs.sendMessage(r -> r.queueUrl(queue.deadLetterUrl()).messageBody(message.body())
                    .messageAttributes(Map.of(
                            "dead-letter-reason", text(reason),
                            "dead-letter-error", text(truncate(error)),
                            "source-queue", text(queue.name()),
                            "original-message-id", text(message.messageId()),
                            "receive-count", text(Integer.toString(receiveCount)))));
        } catch (SdkException e) {
            LOG.errorf("queue %s: could not dead-letter message %s (%s); it stays on the queue: %s", queue.name(),
                    message.messageId(), reason, e.getMessage());
            return "retry";
        }
        delete(message);
        LOG.errorf("queue %s: message %s dead-lettered, reason %s: %s", queue.name(), message.messageId(), reason,
                printable(truncate(error)));
        Counter.builder("leaderboard.queue.dead.lettered").tag("queue", queue.name()).tag("reason", reason)
                .description("Messages sent to the dead-letter queue, by reason").register(registry).increment();
        return "dead-lettered";
    }

    private void delete(Message message) {
        try {
            sqs.deleteMessage(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle()));
        } catch (SdkException e) {
            // The work is done; the message will come back and the handlers are idempotent.
            LOG.warnf("queue %s: could not delete handled message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    private void extend(Message message) {
        try {
            sqs.changeMessageVisibility(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle())
                    .visibilityTimeout((int) options.visibilityTimeout().toSeconds()));
        } catch (SdkException e) {
            LOG.warnf("queue %s: could not extend visibility of message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    private void makeVisibleAfter(Message message, Duration delay) {
        try {
            sqs.changeMessageVisibility(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle())
                    .visibilityTimeout((int) Math.min(delay.toSeconds(), 43_200)));
        } catch (SdkException e) {
            LOG.warnf("queue %s: could not schedule retry of message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    private static int receiveCount(Message message) {
        String count = message.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
        try {
            return count == null ? 1 : Integer.parseInt(count);
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static java.time.Instant sentAt(Message message) {
        String millis = message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP);
        try {
            return millis == null ? null : java.time.Instant.ofEpochMilli(Long.parseLong(millis));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String").stringValue(value == null || value.isEmpty() ? "-" : value)
                .build();
    }

    private static String describe(Exception e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static String truncate(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH) + "...";
    }

    /** Keeps one log line one line: control characters of a hostile value are escaped. */
    static String printable(String text) {
        var out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        var counter = new AtomicInteger();
        return runnable -> {
            var thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
