package org.carla.leaderboard.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.localstack.aws.StackAccess;
import org.carla.leaderboard.localstack.deploy.Deployment;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * Starts the local stack: {@code LocalStack.builder().components("sqs", "dynamodb").start()} returns a
 * {@link RunningStack} once every requested component (and every component it requires) answers and is provisioned.
 * Components whose requirements are running start in parallel; if one fails, the started ones are stopped.
 */
public final class LocalStack {

    /** The shared contract's queues, each with a {@code <name>-dlq}. */
    public static final List<String> QUEUES = List.of("submissions", "launch-requests", "submission-events",
            "progress-reports");
    public static final String REGION = "us-east-1";
    /** The account every ARN, queue URL and bucket name of the stack carries (ElasticMQ's own default account). */
    public static final String ACCOUNT_ID = "000000000000";

    private LocalStack() {
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every component name the builder knows, in listing order. */
    public static List<String> knownComponents() {
        return StackComponents.ALL;
    }

    /** The domain's {@link EvaluationConfig}: its shipped defaults, system properties and env, then the overrides. */
    public static EvaluationConfig evaluationConfig(Map<String, String> overrides) {
        return new SmallRyeConfigBuilder()
                .addDefaultSources()
                .addDiscoveredConverters()
                .withSources(new PropertiesConfigSource(overrides, "local-stack overrides", 500))
                .withMapping(EvaluationConfig.class)
                .build()
                .getConfigMapping(EvaluationConfig.class);
    }

    public static final class Builder {

        private final LinkedHashSet<String> components = new LinkedHashSet<>();
        private final Map<String, Integer> ports = new LinkedHashMap<>();
        private final Map<String, String> evaluation = new LinkedHashMap<>();
        private final Map<String, String> settings = new LinkedHashMap<>();
        private List<String> queues = QUEUES;
        private Path workDir;

        private Builder() {
        }

        /** Component names ({@code sqs}, {@code dynamodb}, {@code s3}, ...); the ones they require are added. */
        public Builder components(String... names) {
            return components(Arrays.asList(names));
        }

        public Builder components(Collection<String> names) {
            names.stream().map(String::trim).filter(name -> !name.isEmpty()).forEach(components::add);
            return this;
        }

        /** A fixed port for a component; without one it listens on a free port. */
        public Builder port(String component, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port of " + component + " out of range: " + port);
            }
            ports.put(component, port);
            return this;
        }

        /** Where logs and data go; kept after close. Default: a temporary folder deleted on close. */
        public Builder workDir(Path workDir) {
            this.workDir = workDir;
            return this;
        }

        /** The queues to create instead of {@link LocalStack#QUEUES}. */
        public Builder queues(List<String> queues) {
            this.queues = List.copyOf(queues);
            return this;
        }

        /** {@code evaluation.*} keys over the domain's defaults; also part of {@link RunningStack#quarkusConfig()}. */
        public Builder evaluation(Map<String, String> overrides) {
            overrides.forEach((key, value) -> {
                if (!key.startsWith("evaluation.")) {
                    throw new IllegalArgumentException("not an evaluation.* key: " + key);
                }
                evaluation.put(key, value);
            });
            return this;
        }

        /** {@code local-stack.*} settings, e.g. the Job runner's image profiles ({@code local-stack.images.*}). */
        public Builder settings(Map<String, String> values) {
            values.forEach((key, value) -> {
                if (!key.startsWith("local-stack.")) {
                    throw new IllegalArgumentException("not a local-stack.* key: " + key);
                }
                settings.put(key, value);
            });
            return this;
        }

        public RunningStack start() {
            if (components.isEmpty()) {
                throw new IllegalArgumentException("no component requested; known: " + StackComponents.ALL);
            }
            ports.keySet().stream().filter(name -> !StackComponents.ALL.contains(name)).findFirst().ifPresent(name -> {
                throw new IllegalArgumentException("port for unknown component '" + name + "'");
            });
            var access = StackAccess.of(Deployment.local(ACCOUNT_ID, REGION));
            // The services find the deployment's buckets and tables as the ConfigMap names them; overrides may only
            // name the same ones.
            var overrides = new LinkedHashMap<>(access.deployment().storage());
            overrides.putAll(evaluation);
            var config = evaluationConfig(overrides);
            requireDeployed(config, access.deployment());
            var toStart = withRequirements();
            boolean temporary = workDir == null;
            Path root = createWorkDir(temporary);
            var stack = new RunningStack(root, temporary, access, REGION, config, overrides);
            try {
                startInWaves(stack, toStart, config);
            } catch (RuntimeException | Error e) {
                stack.close();
                throw e;
            }
            return stack;
        }

        private List<StackComponent> withRequirements() {
            var byName = new LinkedHashMap<String, StackComponent>();
            var pending = new ArrayList<>(components);
            while (!pending.isEmpty()) {
                String name = pending.remove(0);
                if (!byName.containsKey(name)) {
                    var component = StackComponents.create(name);
                    byName.put(name, component);
                    pending.addAll(component.requires());
                }
            }
            // Listing order, so the output and the close order do not depend on how the request was spelled.
            var ordered = new ArrayList<StackComponent>();
            StackComponents.ALL.stream().filter(byName::containsKey).forEach(name -> ordered.add(byName.get(name)));
            return ordered;
        }

        private void startInWaves(RunningStack stack, List<StackComponent> toStart, EvaluationConfig config) {
            var pending = new ArrayList<>(toStart);
            ExecutorService starter = Executors.newCachedThreadPool(runnable -> {
                var thread = new Thread(runnable, "local-stack-start");
                thread.setDaemon(true);
                return thread;
            });
            try {
                while (!pending.isEmpty()) {
                    var requested = toStart.stream().map(StackComponent::name).toList();
                    var wave = pending.stream()
                            .filter(component -> stack.started().containsAll(component.requires()))
                            .filter(component -> component.after().stream()
                                    .noneMatch(name -> requested.contains(name) && !stack.started().contains(name)))
                            .toList();
                    if (wave.isEmpty()) {
                        throw new IllegalStateException("components with unmet requirements: " + pending.stream()
                                .map(c -> c.name() + " requires " + c.requires()).toList());
                    }
                    var endpoints = stack.endpoints();
                    var quarkusConfig = stack.quarkusConfig();
                    var futures = new LinkedHashMap<StackComponent, Future<?>>();
                    for (var component : wave) {
                        stack.add(component);
                        var context = new StackContext(componentDir(stack.workDir(), component.name()),
                                ports.getOrDefault(component.name(), 0), stack.access(), stack.region(), config,
                                queues, endpoints, quarkusConfig, settings);
                        futures.put(component, starter.submit(() -> {
                            component.start(context);
                            return null;
                        }));
                    }
                    RuntimeException failure = null;
                    for (var entry : futures.entrySet()) {
                        try {
                            entry.getValue().get();
                        } catch (ExecutionException e) {
                            var error = new IllegalStateException("local-stack component '" + entry.getKey().name()
                                    + "' did not start: " + e.getCause().getMessage(), e.getCause());
                            if (failure == null) {
                                failure = error;
                            } else {
                                failure.addSuppressed(error);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while starting the local stack", e);
                        }
                    }
                    if (failure != null) {
                        throw failure;
                    }
                    wave.forEach(stack::markStarted);
                    pending.removeAll(wave);
                }
            } finally {
                starter.shutdownNow();
            }
        }

        /** A leaderboard's table or bucket, or the qualifier table, that deploy/aws does not create refuses the start. */
        private static void requireDeployed(EvaluationConfig config, Deployment deployment) {
            var tables = deployment.tables().stream().map(Deployment.Table::name).toList();
            var missing = new ArrayList<String>();
            config.leaderboards().forEach((id, leaderboard) -> {
                if (!tables.contains(leaderboard.submissionsTable())) {
                    missing.add("table " + leaderboard.submissionsTable() + " (leaderboard " + id + ")");
                }
                if (!deployment.buckets().contains(leaderboard.bucket())) {
                    missing.add("bucket " + leaderboard.bucket() + " (leaderboard " + id + ")");
                }
            });
            if (!tables.contains(config.qualifierTable())) {
                missing.add("table " + config.qualifierTable() + " (the qualifiers)");
            }
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("deploy/aws/leaderboard-backend.yaml creates no " + missing
                        + ": the local stack has the deployment's tables and buckets only (tables " + tables
                        + ", buckets " + deployment.buckets() + ")");
            }
        }

        private Path createWorkDir(boolean temporary) {
            try {
                if (temporary) {
                    Path created = Files.createTempDirectory("local-stack-");
                    // Owner-only as created; containers the Job runner starts as other users must reach their volumes.
                    Files.setAttribute(created, "unix:mode", 0711);
                    return created;
                }
                return Files.createDirectories(workDir.toAbsolutePath());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the local stack's work dir", e);
            }
        }

        private static Path componentDir(Path root, String name) {
            try {
                return Files.createDirectories(root.resolve(name));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + root.resolve(name), e);
            }
        }
    }
}
