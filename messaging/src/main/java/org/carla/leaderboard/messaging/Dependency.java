package org.carla.leaderboard.messaging;

import java.time.Duration;
import java.time.Instant;

import org.carla.leaderboard.domain.metrics.LiveGauge;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Something a service needs that can go down for a while (EvalAI, DynamoDB, the Kubernetes API): whether its last
 * call answered, as the gauge {@code leaderboard_dependency_up{dependency}} (1 up, 0 down) and one log line when an
 * outage starts and one when it ends. Meanwhile the messages that need it wait on their queues; nothing is
 * dead-lettered for it. Made by {@link Dependencies}.
 */
public final class Dependency {

    private static final Logger LOG = Logger.getLogger(Dependency.class);
    private static final int MAX_ERROR_LENGTH = 300;

    private final String name;
    private boolean up = true;
    private Instant downSince;
    private String error;

    Dependency(String name, MeterRegistry registry) {
        this.name = name;
        LiveGauge.register(registry, "leaderboard.dependency.up", Tags.of("dependency", name),
                "1 when the dependency's last call answered, 0 while it is down", this,
                dependency -> dependency.state().up() ? 1 : 0);
    }

    public String name() {
        return name;
    }

    /** It answered (even with a refusal that is the message's fault, such as a 404). */
    public synchronized void answered() {
        if (up) {
            return;
        }
        LOG.infof("%s is back after %s; the messages that waited for it are handled at their next receive", name,
                human(Duration.between(downSince, Instant.now())));
        up = true;
        downSince = null;
        error = null;
    }

    /** It did not answer, or answered that it cannot serve now (5xx, 429, a timeout, refused connections). */
    public synchronized void failed(String why) {
        error = truncate(QueueConsumer.printable(why == null ? "unknown error" : why));
        if (!up) {
            return;
        }
        up = false;
        downSince = Instant.now();
        LOG.warnf("%s is down (%s); the messages that need it wait on their queues with back-off, none is "
                + "dead-lettered for it", name, error);
    }

    public void failed(Throwable cause) {
        failed(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    /** What a probe saw: {@link #answered()} or {@link #failed(String)}. */
    public void observed(boolean answered, String why) {
        if (answered) {
            answered();
        } else {
            failed(why);
        }
    }

    public synchronized DependencyState state() {
        return new DependencyState(name, up, downSince, error);
    }

    private static String truncate(String text) {
        return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH) + "...";
    }

    private static String human(Duration duration) {
        long seconds = duration.toSeconds();
        return seconds < 120 ? seconds + " s" : seconds / 60 + " min";
    }

    /**
     * @param name      the dependency ({@code evalai})
     * @param up        its last call answered
     * @param downSince since when it has been down; {@code null} while up
     * @param error     the last failure while down; {@code null} while up
     */
    public record DependencyState(String name, boolean up, Instant downSince, String error) {
    }
}
