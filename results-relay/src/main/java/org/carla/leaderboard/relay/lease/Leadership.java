package org.carla.leaderboard.relay.lease;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.UUID;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;

import org.carla.leaderboard.domain.metrics.LiveGauge;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.service.EvalAiOutbox;
import org.carla.leaderboard.relay.service.EventConsumers;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Which replica is active: the one holding the Lease {@code relay.leadership.name} (fabric8's {@code LeaderElector},
 * {@link LeaseCandidate}). The active relay consumes both
 * queues ({@link EventConsumers}) and runs the scheduled work (the EvalAI outbox, the stuck rules: each skipped on a
 * standby, {@link Standby}); a standby consumes nothing and calls nothing on EvalAI. Gauge {@code relay_active} (1 or
 * 0); a log line when a term begins and ends.
 */
@ApplicationScoped
public class Leadership {

    private static final Logger LOG = Logger.getLogger(Leadership.class);
    /** After the application's own startup observers (the outbox's job is scheduled by then). */
    private static final int AFTER_STARTUP = jakarta.interceptor.Interceptor.Priority.APPLICATION + 1000;

    private final RelayConfig.Leadership config;
    private final EventConsumers consumers;
    private final EvalAiOutbox outbox;
    private final Instance<KubernetesClient> kubernetes;
    private final String identity;
    private volatile boolean active;
    private volatile LeaseCandidate candidate;

    Leadership(RelayConfig config, EventConsumers consumers, EvalAiOutbox outbox,
            Instance<KubernetesClient> kubernetes, MeterRegistry registry) {
        this.config = config.leadership();
        this.consumers = consumers;
        this.outbox = outbox;
        this.kubernetes = kubernetes;
        this.identity = podName() + "-" + UUID.randomUUID().toString().substring(0, 8);
        LiveGauge.register(registry, "relay.active", Tags.empty(),
                "1 while this replica is the active relay (consumes and runs the scheduled work)", this,
                leadership -> leadership.active() ? 1 : 0);
    }

    void start(@Observes @Priority(AFTER_STARTUP) StartupEvent started) {
        var settings = new LeaseCandidate.Settings(config.namespace(), config.name(), identity, config.duration(),
                config.renewDeadline(), config.retryPeriod());
        LOG.infof("relay standby as %s until it holds the Lease %s/%s (duration %s, renew deadline %s, retry %s)",
                identity, settings.namespace(), settings.name(), settings.duration(), settings.renewDeadline(),
                settings.retryPeriod());
        candidate = new LeaseCandidate(kubernetes.get(), settings, new LeaseCandidate.Terms() {
            @Override
            public void begin() {
                LOG.infof("relay active: %s holds the Lease %s/%s", identity, settings.namespace(), settings.name());
                Leadership.this.begin();
            }

            @Override
            public void end() {
                LOG.infof("relay standby: %s no longer holds the Lease %s/%s; consuming nothing, trying again every %s",
                        identity, settings.namespace(), settings.name(), settings.retryPeriod());
                Leadership.this.end();
            }
        });
        candidate.start();
    }

    /** Releases the Lease first (the other replica takes over at once), then lets the messages in hand finish. */
    void stop(@Observes ShutdownEvent shutdown) {
        active = false;
        if (candidate != null) {
            candidate.close();
        } else {
            end();
        }
    }

    private void begin() {
        outbox.beginTerm();
        consumers.start();
        active = true;
    }

    private void end() {
        active = false;
        consumers.stop();
    }

    /** Whether this replica consumes and runs the scheduled work now. */
    public boolean active() {
        return active;
    }

    /** This process's holder identity: the pod's name and a part unique to this start. */
    public String identity() {
        return identity;
    }

    /** The holder of the Lease as this replica last saw it. */
    public Optional<String> holder() {
        LeaseCandidate leaseCandidate = candidate;
        return leaseCandidate == null ? Optional.empty() : leaseCandidate.holder();
    }

    /** The pod's name (Kubernetes sets HOSTNAME to it), else the host's. */
    private static String podName() {
        String hostname = System.getenv("HOSTNAME");
        if (hostname != null && !hostname.isBlank()) {
            return hostname;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "results-relay";
        }
    }
}
