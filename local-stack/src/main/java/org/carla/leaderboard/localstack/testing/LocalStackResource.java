package org.carla.leaderboard.localstack.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.carla.leaderboard.localstack.KubernetesComponent;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The local stack for a service's {@code @QuarkusTest}:
 * {@code @WithTestResource(value = LocalStackResource.class, initArgs = @ResourceArg(name = "components", value = "sqs,s3"))}
 * (its default scope: test classes with the same init args share one Quarkus start, and so one stack).
 * Starts only the listed components (and what they require), returns the overrides that point the service at them,
 * and fills {@code @InjectLocalStack RunningStack} fields.
 *
 * <p>Init args: {@code components} (comma-separated, default {@code sqs,dynamodb,s3}); {@code shared} (default
 * {@code true}: the resources of one Quarkus start with the same components and init args share one stack, stopped
 * when the last of them stops; {@code false}: a stack of this resource's own, stopped by {@link #stop()}); any
 * {@code evaluation.*} key, to provision the tables and buckets of a test's own leaderboards (also returned as config);
 * any {@code local-stack.*} setting (e.g. {@code local-stack.images.<id>.*}, the Job runner's image profiles).
 * A shared stack's queues, tables and buckets outlive a test: purging them is the tests' business.
 *
 * <p>The service signs as the IAM role its ServiceAccount assumes (IRSA), read from its {@code application.properties}
 * ({@code quarkus.kubernetes.namespace}, {@code quarkus.kubernetes.service-account}) or given as the init arg
 * {@code service-account} ({@code namespace:name}); the injected stack's clients are the administrator's (a test's
 * operator). With the {@code kubernetes} component it talks to the API server as that ServiceAccount, with its token.
 */
public class LocalStackResource implements QuarkusTestResourceLifecycleManager {

    /**
     * The shared stacks by key, with how many started resources use each. Quarkus loads this class anew for each of its
     * starts, so a stack is shared within one start and closed when that start's resources stop.
     */
    private static final Map<String, Shared> SHARED = new HashMap<>();

    private record Shared(RunningStack stack, int users) {
    }

    private List<String> components = List.of("sqs", "dynamodb", "s3");
    private boolean shared = true;
    private final Map<String, String> evaluation = new TreeMap<>();
    private final Map<String, String> settings = new TreeMap<>();
    private RunningStack stack;
    private String sharedKey;
    private ServiceAccount serviceAccount;

    @Override
    public void init(Map<String, String> initArgs) {
        var requested = initArgs.get("components");
        if (requested != null) {
            components = List.copyOf(new TreeSet<>(Arrays.stream(requested.split(","))
                    .map(String::trim).filter(name -> !name.isEmpty()).toList()));
        }
        shared = Boolean.parseBoolean(initArgs.getOrDefault("shared", "true"));
        String account = initArgs.get("service-account");
        if (account != null) {
            String[] parts = account.split(":", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("service-account is namespace:name, not " + account);
            }
            serviceAccount = new ServiceAccount(parts[0], parts[1]);
        }
        initArgs.forEach((key, value) -> {
            if (key.startsWith("evaluation.")) {
                evaluation.put(key, value);
            } else if (key.startsWith("local-stack.")) {
                settings.put(key, value);
            }
        });
    }

    @Override
    public Map<String, String> start() {
        if (shared) {
            sharedKey = String.join(",", components) + evaluation + settings;
            synchronized (SHARED) {
                Shared running = SHARED.get(sharedKey);
                stack = running != null ? running.stack() : newStack(sharedKey);
                SHARED.put(sharedKey, new Shared(stack, running != null ? running.users() + 1 : 1));
            }
        } else {
            stack = newStack("own");
        }
        var config = new TreeMap<>(stack.quarkusConfig(serviceAccount()));
        config.putAll(kubernetesIdentity());
        return config;
    }

    /**
     * With the {@code kubernetes} component: the service under test talks to the API server as the same ServiceAccount,
     * by fabric8's system properties — set in this JVM for a {@code @QuarkusTest}, returned for a
     * {@code @QuarkusIntegrationTest}, whose process gets them as {@code -D} options.
     */
    private Map<String, String> kubernetesIdentity() {
        if (!stack.started().contains(KubernetesComponent.NAME)) {
            return Map.of();
        }
        var identity = stack.component(KubernetesComponent.NAME, KubernetesComponent.class).identity(serviceAccount());
        identity.forEach(System::setProperty);
        return identity;
    }

    private ServiceAccount serviceAccount() {
        if (serviceAccount == null) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            serviceAccount = ServiceAccount.ofClassPath(loader != null ? loader : getClass().getClassLoader())
                    .orElseThrow(() -> new IllegalStateException("no application.properties on the class path names the "
                            + "service's ServiceAccount (quarkus.kubernetes.namespace, quarkus.kubernetes.service-account)"
                            + "; give the init arg service-account=<namespace>:<name>"));
        }
        return serviceAccount;
    }

    @Override
    public void inject(TestInjector testInjector) {
        testInjector.injectIntoFields(stack,
                new TestInjector.AnnotatedAndMatchesType(InjectLocalStack.class, RunningStack.class));
    }

    @Override
    public void stop() {
        RunningStack mine = stack;
        stack = null; // a second stop() neither closes nor counts again
        if (mine == null) {
            return;
        }
        if (shared) {
            synchronized (SHARED) {
                Shared running = SHARED.get(sharedKey);
                if (running == null || running.stack() != mine) {
                    return;
                }
                if (running.users() > 1) {
                    SHARED.put(sharedKey, new Shared(mine, running.users() - 1));
                    return;
                }
                SHARED.remove(sharedKey);
            }
        }
        mine.close();
    }

    private RunningStack newStack(String key) {
        return LocalStack.builder()
                .components(components)
                .evaluation(evaluation)
                .settings(settings)
                .workDir(workDir(key))
                .start();
    }

    /** Under the module's {@code target/} when the tests run from Maven, so the servers' logs stay for a look. */
    private static Path workDir(String key) {
        String name = "stack-" + ProcessHandle.current().pid() + "-" + Integer.toHexString(key.hashCode()) + "-"
                + System.nanoTime();
        Path target = Path.of("target");
        Path parent = Files.isDirectory(target) ? target.resolve("local-stack")
                : Path.of(System.getProperty("java.io.tmpdir"), "local-stack");
        return parent.resolve(name);
    }
}
