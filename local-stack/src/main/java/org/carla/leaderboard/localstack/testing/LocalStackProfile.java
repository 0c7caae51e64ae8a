package org.carla.leaderboard.localstack.testing;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The test profile of a service's {@code @QuarkusIntegrationTest}: the packaged service (jar, or native executable
 * under {@code -Pnative}) against a local stack of its own, with the given {@link LocalStackResource} init args, and
 * without any other test resource (one its superclass names included), whose configuration (another stack's queue URLs,
 * a mock API server) would otherwise be passed to the service too. A subclass names the init args in a public no-argument constructor:
 * {@code public static class Stack extends LocalStackProfile { public Stack() { super(Map.of("components", "sqs")); } }}.
 * The stack is started in the test's JVM, so {@code @InjectLocalStack} fields are filled as in a {@code @QuarkusTest}.
 */
public abstract class LocalStackProfile implements QuarkusTestProfile {

    private final Map<String, String> initArgs;

    protected LocalStackProfile(Map<String, String> initArgs) {
        this.initArgs = Map.copyOf(initArgs);
    }

    @Override
    public List<TestResourceEntry> testResources() {
        boolean kubernetes = Arrays.stream(initArgs.getOrDefault("components", "").split(","))
                .anyMatch(component -> component.trim().equals("kubernetes"));
        return kubernetes
                ? List.of(new TestResourceEntry(LocalStackResource.class, initArgs),
                        new TestResourceEntry(RunTimeApiServer.class))
                : List.of(new TestResourceEntry(LocalStackResource.class, initArgs));
    }

    @Override
    public boolean disableGlobalTestResources() {
        return true;
    }

    /**
     * quarkus-kubernetes-client fixes {@code api-server-url} at build time, where it is unset (in the cluster, the
     * pod's own configuration); the stack's API server is given at run time, as {@code ./run-local.sh} does, and Quarkus
     * then uses it with a warning (its default), which a test profile would otherwise turn into a failed start.
     */
    public static final class RunTimeApiServer implements QuarkusTestResourceLifecycleManager {

        @Override
        public Map<String, String> start() {
            return Map.of("quarkus.config.build-time-mismatch-at-runtime", "warn");
        }

        @Override
        public void stop() {
        }
    }
}
