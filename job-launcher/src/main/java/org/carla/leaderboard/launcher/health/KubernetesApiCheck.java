package org.carla.leaderboard.launcher.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.launcher.service.JobWatcher;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Ready when the API server lists the submissions' Jobs (one, the cheapest list) and the watcher is in sync; each probe
 * also tells {@link Dependencies#KUBERNETES} whether the API server answered.
 */
@Readiness
@ApplicationScoped
public class KubernetesApiCheck implements HealthCheck {

    private final KubernetesClient kubernetes;
    private final JobWatcher watcher;
    private final String namespace;
    private final Dependency dependency;

    KubernetesApiCheck(KubernetesClient kubernetes, JobWatcher watcher, LauncherConfig config,
            Dependencies dependencies) {
        this.kubernetes = kubernetes;
        this.watcher = watcher;
        this.namespace = config.namespace();
        this.dependency = dependencies.get(Dependencies.KUBERNETES);
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("kubernetes-api").withData("namespace", namespace);
        try {
            kubernetes.batch().v1().jobs().inNamespace(namespace).list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            dependency.failed(e);
            return response.down().withData("error", String.valueOf(e.getMessage())).build();
        }
        dependency.answered();
        return response.status(watcher.watching()).withData("watching", watcher.watching()).build();
    }
}
