package org.carla.leaderboard.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
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
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
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
 * attributes; one that failed for any other reason (a dependency down) waits on the queue, invisible for a back-off
 * that grows per receive up to {@code maxRetryBackoff}, for as long as the queue keeps it: the consumer never
 * dead-letters it (the queue's redrive policy remains the safety net for a message that kills its consumer). Nothing
 * is lost: a message is deleted from the queue only after it was handled or after its dead-letter copy was sent.
 */
public final class QueueConsumer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(QueueConsumer.class);
    private static final int MAX_ERROR_LENGTH = 1000;
    /** SQS carries at most 10 message attributes; the dead-letter copy adds 5. */
    private static final int MAX_CARRIED_ATTRIBUTES = 5;
    private static final Duration FIRST_PAUSE = Duration.ofMillis(500);
    private static final Duration MAX_PAUSE = Duration.ofSeconds(30);

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
    private volatile Instant outageSince;
    private volatile long lastPollNanos;
    private volatile Thread poller;

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
        lastPollNanos = System.nanoTime();
        poller = named(queue.name() + "-poller").newThread(this::poll);
        poller.start();
        LOG.infof("consuming queue %s (%d in flight, long polling %ds, visibility %ds)", queue.name(),
                options.maxInFlight(), options.waitTime().toSeconds(), options.visibilityTimeout().toSeconds());
    }

    /** Messages being handled right now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Whether it polls, and how the queue answers: what the liveness check reads. */
    public ConsumerState state() {
        Thread thread = poller;
        Duration sinceLastPoll = thread == null ? null : Duration.ofNanos(System.nanoTime() - lastPollNanos);
        return new ConsumerState(queue.name(), running, thread != null && thread.isAlive(), sinceLastPoll,
                options.stalledAfter(), inFlight.get(), outageSince == null, outageSince);
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
        try {
            pollUntilClosed();
        } catch (Error e) {
            LOG.fatalf(e, "queue %s: the polling thread died; liveness fails until the service is restarted",
                    queue.name());
            throw e;
        }
    }

    /**
     * Every step blocks at most {@code waitTime} plus {@link ConsumerOptions#pollStep()} and marks the loop alive
     * after it, so a loop that marks nothing for longer than {@link ConsumerOptions#stalledAfter()} is wedged.
     */
    private void pollUntilClosed() {
        Duration pause = FIRST_PAUSE;
        Duration maxPause = MAX_PAUSE.compareTo(options.pollStep()) < 0 ? MAX_PAUSE : options.pollStep();
        while (running) {
            lastPollNanos = System.nanoTime();
            int taken = 0;
            try {
                if (!slots.tryAcquire(options.pollStep().toMillis(), TimeUnit.MILLISECONDS)) {
                    continue; // every handler is busy: mark the loop alive and wait again
                }
                taken = 1;
                while (taken < 10 && slots.tryAcquire()) {
                    taken++;
                }
                lastPollNanos = System.nanoTime();
                List<Message> messages = receive(taken);
                lastPollNanos = System.nanoTime();
                answered();
                pause = FIRST_PAUSE;
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
            } catch (RuntimeException e) {
                // An SDK error (the queue unreachable) or anything else: the same pause, never a tight loop.
                lastPollNanos = System.nanoTime();
                slots.release(taken);
                if (!running) {
                    return;
                }
                failedToPoll(e);
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                pause = pause.multipliedBy(2).compareTo(maxPause) > 0 ? maxPause : pause.multipliedBy(2);
            }
        }
    }

    private List<Message> receive(int wanted) {
        return sqs.receiveMessage(r -> r.queueUrl(queue.url())
                .maxNumberOfMessages(wanted)
                .waitTimeSeconds((int) options.waitTime().toSeconds())
                .visibilityTimeout((int) options.visibilityTimeout().toSeconds())
                .messageAttributeNames("All")
                .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                        MessageSystemAttributeName.SENT_TIMESTAMP)
                .overrideConfiguration(o -> o.apiCallTimeout(options.receiveTimeout())))
                .messages();
    }

    /** Logs the first failure of a streak (with its stack when it is not the SDK's), not one per poll. */
    private void failedToPoll(RuntimeException e) {
        if (outageSince != null) {
            LOG.debugf("queue %s still failing: %s", queue.name(), e.getMessage());
            return;
        }
        outageSince = Instant.now();
        if (e instanceof SdkException) {
            LOG.errorf("queue %s unreachable, polling again with back-off: %s", queue.name(), e.getMessage());
        } else {
            LOG.errorf(e, "queue %s: unexpected error while polling, polling again with back-off", queue.name());
        }
    }

    private void answered() {
        Instant since = outageSince;
        if (since != null) {
            outageSince = null;
            LOG.infof("queue %s answers again after %ds", queue.name(),
                    Duration.between(since, Instant.now()).toSeconds());
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
            outcome = deadLetter(message, heartbeat, receiveCount, "malformed-" + e.reason().tag(), e.getMessage());
        } catch (RejectedMessageException e) {
            outcome = deadLetter(message, heartbeat, receiveCount, e.reason(), e.getMessage());
        } catch (Exception e) {
            // Passing (a dependency down, a bug that a fix will mend, or a message ahead of what it follows): never
            // dead-lettered by us.
            heartbeat.cancel(false);
            Duration backoff = options.backoffAfter(receiveCount);
            boolean early = e instanceof ArrivedEarlyException;
            LOG.logf(early ? Logger.Level.INFO : Logger.Level.WARN, "queue %s: message %s %s on receive %d, tried again"
                    + " in %ds: %s", queue.name(), message.messageId(), early ? "came early" : "failed", receiveCount,
                    backoff.toSeconds(), printable(early ? e.getMessage() : describe(e)));
            makeVisibleAfter(message, backoff);
            outcome = early ? "early" : "retry";
        } finally {
            heartbeat.cancel(false);
        }
        sample.stop(Timer.builder("leaderboard.queue.handling").tag("queue", queue.name()).tag("outcome", outcome)
                .description("Time to handle one message").register(registry));
    }

    /**
     * Sends the message's copy to the dead-letter queue, then deletes it. The heartbeat goes on while the copy is sent
     * (however slow, the message cannot come back for a second copy) and stops before the delete, which the visibility
     * left (at least half of it) outlasts: the delete is bounded by half.
     */
    private String deadLetter(Message message, ScheduledFuture<?> heartbeat, int receiveCount, String reason,
            String error) {
        var attributes = new LinkedHashMap<String, MessageAttributeValue>();
        // The message's own attributes (its type) travel with it, so a move back restores it as it was.
        message.messageAttributes().forEach((name, value) -> {
            if (!DeadLetter.REASON_ATTRIBUTES.contains(name) && attributes.size() < MAX_CARRIED_ATTRIBUTES) {
                attributes.put(name, value);
            }
        });
        attributes.put(DeadLetter.REASON, text(reason));
        attributes.put(DeadLetter.ERROR, text(truncate(error)));
        attributes.put(DeadLetter.SOURCE_QUEUE, text(queue.name()));
        attributes.put(DeadLetter.ORIGINAL_MESSAGE_ID, text(message.messageId()));
        attributes.put(DeadLetter.RECEIVE_COUNT, text(Integer.toString(receiveCount)));
        try {
            sqs.sendMessage(r -> r.queueUrl(queue.deadLetterUrl()).messageBody(message.body())
                    .messageAttributes(attributes).overrideConfiguration(this::bounded));
        } catch (SdkException e) {
            LOG.errorf("queue %s: could not dead-letter message %s (%s); it stays on the queue: %s", queue.name(),
                    message.messageId(), reason, e.getMessage());
            return "retry";
        }
        heartbeat.cancel(false);
        delete(message);
        LOG.errorf("queue %s: message %s dead-lettered, reason %s: %s", queue.name(), message.messageId(), reason,
                printable(truncate(error)));
        Counter.builder("leaderboard.queue.dead.lettered").tag("queue", queue.name()).tag("reason", reason)
                .description("Messages sent to the dead-letter queue, by reason").register(registry).increment();
        return "dead-lettered";
    }

    private void delete(Message message) {
        try {
            sqs.deleteMessage(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle())
                    .overrideConfiguration(this::bounded));
        } catch (SdkException e) {
            // The work is done; the message will come back and the handlers are idempotent.
            LOG.warnf("queue %s: could not delete handled message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    private void extend(Message message) {
        try {
            sqs.changeMessageVisibility(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle())
                    .visibilityTimeout((int) options.visibilityTimeout().toSeconds())
                    .overrideConfiguration(this::bounded));
        } catch (SdkException e) {
            LOG.warnf("queue %s: could not extend visibility of message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    private void makeVisibleAfter(Message message, Duration delay) {
        try {
            sqs.changeMessageVisibility(r -> r.queueUrl(queue.url()).receiptHandle(message.receiptHandle())
                    .visibilityTimeout((int) Math.min(delay.toSeconds(), ConsumerOptions.MAX_VISIBILITY.toSeconds()))
                    .overrideConfiguration(this::bounded));
        } catch (SdkException e) {
            LOG.warnf("queue %s: could not schedule retry of message %s: %s", queue.name(), message.messageId(),
                    e.getMessage());
        }
    }

    /** A handled message's call bounded by {@link ConsumerOptions#callTimeout()}, its retries included. */
    private void bounded(AwsRequestOverrideConfiguration.Builder call) {
        call.apiCallTimeout(options.callTimeout());
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

    /** A string attribute SQS accepts: a hostile value's control or non-characters are escaped, never refused. */
    static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder().dataType("String")
                .stringValue(value == null || value.isEmpty() ? "-" : printable(value)).build();
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

    /**
     * Keeps one log line one line, and an attribute value one SQS takes: control characters, lone surrogates and the
     * non-characters U+FFFE/U+FFFF of a hostile value are escaped.
     */
    static String printable(String text) {
        var out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE || c == 0xFFFE
                    || c == 0xFFFF) {
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
