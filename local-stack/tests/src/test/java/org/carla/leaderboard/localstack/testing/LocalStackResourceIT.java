package org.carla.leaderboard.localstack.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.net.URI;
import java.util.Map;
import java.util.function.Predicate;

import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager.TestInjector;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The test resource without Quarkus: what start() returns points a client at live servers, and the injection. */
class LocalStackResourceIT {

    static class SomeServiceTest {
        @InjectLocalStack
        RunningStack stack;
        RunningStack notAnnotated;
    }

    @Test
    void startReturnsTheOverridesOfTheRequestedComponentsOnly() {
        var resource = new LocalStackResource();
        resource.init(Map.of("components", "sqs, dynamodb", "shared", "false",
                "evaluation.phases.2077.routes", "3", "service-account", "leaderboard:ingest-service"));
        try {
            Map<String, String> config = resource.start();

            assertThat(config).containsKeys("quarkus.sqs.endpoint-override", "quarkus.dynamodb.endpoint-override",
                    "queues.submissions.url", "queues.submissions.dead-letter-url", "queues.launch-requests.url",
                    "queues.submission-events.dead-letter-url")
                    .containsEntry("quarkus.sqs.aws.credentials.type", "static")
                    .containsEntry("evaluation.phases.2077.routes", "3");
            assertThat(config.keySet()).noneMatch(key -> key.startsWith("quarkus.s3."));

            var test = new SomeServiceTest();
            resource.inject(new FieldInjector(test));
            assertThat(test.stack).isNotNull();
            assertThat(test.notAnnotated).isNull();
            // A client configured only from the returned map, as a service would be, reaches the queue it consumes,
            // signing as the IAM role of ingest-service's ServiceAccount, never as the administrator.
            try (var sqs = SqsClient.builder()
                    .endpointOverride(URI.create(config.get("quarkus.sqs.endpoint-override")))
                    .region(Region.of(config.get("quarkus.sqs.aws.region")))
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                            config.get("quarkus.sqs.aws.credentials.static-provider.access-key-id"),
                            config.get("quarkus.sqs.aws.credentials.static-provider.secret-access-key"))))
                    .httpClientBuilder(UrlConnectionHttpClient.builder())
                    .build()) {
                test.stack.sqs().sendMessage(r -> r.queueUrl(config.get("queues.submissions.url")).messageBody("hello"));
                assertThat(sqs.receiveMessage(r -> r.queueUrl(config.get("queues.submissions.url")).waitTimeSeconds(5))
                        .messages()).extracting(m -> m.body()).containsExactly("hello");
            }

            assertThat(test.stack.quarkusConfig(new ServiceAccount("leaderboard", "ingest-service"))).isEqualTo(config);
            assertThat(config.get("quarkus.sqs.aws.credentials.static-provider.access-key-id"))
                    .isEqualTo(test.stack.credentials(new ServiceAccount("leaderboard", "ingest-service")).accessKeyId())
                    .isNotEqualTo(test.stack.credentials().accessKeyId());
        } finally {
            resource.stop();
        }
    }

    @Test
    void sharedResourcesWithTheSameComponentsShareOneStackUntilTheLastOfThemStops() {
        var first = new LocalStackResource();
        first.init(Map.of("components", "sqs", "service-account", "leaderboard:job-launcher"));
        var second = new LocalStackResource();
        second.init(Map.of("components", " sqs ", "service-account", "leaderboard:job-launcher"));
        var firstConfig = first.start();
        var secondConfig = second.start();
        var test = new SomeServiceTest();
        second.inject(new FieldInjector(test));
        var servers = test.stack.processes();

        first.stop();

        assertThat(secondConfig).isEqualTo(firstConfig);
        assertThat(servers).isNotEmpty().allMatch(ProcessHandle::isAlive);
        assertThat(test.stack.sqs().listQueues().queueUrls()).hasSize(2 * LocalStack.QUEUES.size());

        second.stop();

        assertThat(servers).noneMatch(ProcessHandle::isAlive);
    }

    @Test
    void anOwnStackIsStoppedWithTheResource() {
        var resource = new LocalStackResource();
        resource.init(Map.of("components", "sqs", "shared", "false", "service-account", "leaderboard:job-launcher"));
        resource.start();
        var test = new SomeServiceTest();
        resource.inject(new FieldInjector(test));
        var servers = test.stack.processes();

        resource.stop();

        assertThat(servers).isNotEmpty().noneMatch(ProcessHandle::isAlive);
    }

    /** What Quarkus's injector does: set every field the predicate accepts. */
    private record FieldInjector(Object test) implements TestInjector {
        @Override
        public void injectIntoFields(Object fieldValue, Predicate<Field> predicate) {
            for (Field field : test.getClass().getDeclaredFields()) {
                if (predicate.test(field)) {
                    try {
                        field.setAccessible(true);
                        field.set(test, fieldValue);
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
    }

}
