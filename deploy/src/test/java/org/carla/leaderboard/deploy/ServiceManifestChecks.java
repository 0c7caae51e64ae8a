package org.carla.leaderboard.deploy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.Role;

/** Questions an operator asks of a service's manifests: who can read a Secret, what a Role allows. */
final class ServiceManifestChecks {

    private ServiceManifestChecks() {
    }

    /** The workloads whose pods can read the Secret: env, envFrom, a secret volume or a projected one. */
    static Set<String> workloadsReadingSecret(List<HasMetadata> objects, String secret) {
        Set<String> readers = new TreeSet<>();
        for (HasMetadata object : objects) {
            podSpec(object).filter(spec -> reads(spec, secret)).ifPresent(spec -> readers.add(object.getMetadata().getName()));
        }
        return readers;
    }

    /** The Role's rules as "apiGroup/resource" → verbs ("" is the core group, so pods are "/pods"). */
    static Map<String, Set<String>> rules(Role role) {
        Map<String, Set<String>> rules = new TreeMap<>();
        role.getRules().forEach(rule -> rule.getApiGroups().forEach(group -> rule.getResources().forEach(
                resource -> rules.computeIfAbsent(group + "/" + resource, key -> new TreeSet<>()).addAll(rule.getVerbs()))));
        return rules;
    }

    static <T extends HasMetadata> List<T> ofKind(List<HasMetadata> objects, Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    static Optional<PodSpec> podSpec(HasMetadata object) {
        if (object instanceof Deployment deployment) {
            return Optional.of(deployment.getSpec().getTemplate().getSpec());
        }
        if (object instanceof StatefulSet statefulSet) {
            return Optional.of(statefulSet.getSpec().getTemplate().getSpec());
        }
        if (object instanceof DaemonSet daemonSet) {
            return Optional.of(daemonSet.getSpec().getTemplate().getSpec());
        }
        if (object instanceof Job job) {
            return Optional.of(job.getSpec().getTemplate().getSpec());
        }
        if (object instanceof CronJob cronJob) {
            return Optional.of(cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getSpec());
        }
        if (object instanceof Pod pod) {
            return Optional.of(pod.getSpec());
        }
        return Optional.empty();
    }

    private static boolean reads(PodSpec spec, String secret) {
        Stream<Container> containers = Stream.concat(list(spec.getContainers()).stream(), list(spec.getInitContainers()).stream());
        boolean inEnvironment = containers.anyMatch(container -> list(container.getEnv()).stream()
                .anyMatch(env -> env.getValueFrom() != null && env.getValueFrom().getSecretKeyRef() != null
                        && secret.equals(env.getValueFrom().getSecretKeyRef().getName()))
                || list(container.getEnvFrom()).stream()
                        .anyMatch(from -> from.getSecretRef() != null && secret.equals(from.getSecretRef().getName())));
        return inEnvironment || list(spec.getVolumes()).stream().anyMatch(volume -> mounts(volume, secret));
    }

    private static boolean mounts(Volume volume, String secret) {
        if (volume.getSecret() != null && secret.equals(volume.getSecret().getSecretName())) {
            return true;
        }
        return volume.getProjected() != null && list(volume.getProjected().getSources()).stream()
                .anyMatch(source -> source.getSecret() != null && secret.equals(source.getSecret().getName()));
    }

    private static <T> List<T> list(List<T> items) {
        return items == null ? List.of() : items;
    }
}
