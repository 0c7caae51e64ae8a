package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.process.ServerClassPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of the stack and the checks that run before any server starts. */
class LocalStackMainTests {

    @Test
    void optionsSelectComponentsPortsOverridesAndSettings(@TempDir Path dir) throws Exception {
        var config = dir.resolve("stack.properties");
        Files.writeString(config, """
                evaluation.qualifier-table=qualifiers
                local-stack.images.tools.image=registry.local/tools:.*
                """);

        var options = LocalStackMain.Options.parse(new String[] {"--stack-only", "--components", "sqs,s3",
                "--sqs-port", "9324", "--evaluation", "evaluation.leaderboards.lb.bucket=b=c", "--config",
                config.toString(), "--work-dir", dir.toString()});

        assertThat(options.components()).containsExactly("sqs", "s3");
        assertThat(options.ports()).isEqualTo(Map.of("sqs", 9324));
        assertThat(options.evaluation()).containsEntry("evaluation.leaderboards.lb.bucket", "b=c")
                .containsEntry("evaluation.qualifier-table", "qualifiers");
        assertThat(options.settings()).containsEntry("local-stack.images.tools.image", "registry.local/tools:.*");
        assertThat(options.workDir()).isEqualTo(dir);
        assertThat(options.help()).isFalse();
    }

    @Test
    void badOptionsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> LocalStackMain.Options.parse(new String[] {"--redis-port", "1"}))
                .hasMessageContaining("unknown component in --redis-port");
        assertThatThrownBy(() -> LocalStackMain.Options.parse(new String[] {"--sqs-port", "x"}))
                .hasMessageContaining("port number");
        assertThatThrownBy(() -> LocalStackMain.Options.parse(new String[] {"--evaluation", "novalue"}))
                .hasMessageContaining("key=value");
        assertThatThrownBy(() -> LocalStackMain.Options.parse(new String[] {"--work-dir"}))
                .hasMessageContaining("needs a value");
        assertThatThrownBy(() -> LocalStackMain.Options.parse(new String[] {"--frobnicate"}))
                .hasMessageContaining("unknown option --frobnicate");
    }

    @Test
    void theBuilderRefusesWhatItCannotStartBeforeStartingAnything() {
        assertThatThrownBy(() -> LocalStack.builder().components("sqs", "redis").start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis").hasMessageContaining("sqs, dynamodb, s3, evalai, kubernetes");
        assertThatThrownBy(() -> LocalStack.builder().start()).hasMessageContaining("no component");
        assertThatThrownBy(() -> LocalStack.builder().port("sqs", 70000)).hasMessageContaining("out of range");
        assertThatThrownBy(() -> LocalStack.builder().evaluation(Map.of("quarkus.http.port", "1")))
                .hasMessageContaining("not an evaluation.* key");
    }

    @Test
    void environmentNamesFollowMicroProfileConfig() {
        assertThat(LocalStackMain.environmentName("quarkus.s3.aws.credentials.static-provider.access-key-id"))
                .isEqualTo("QUARKUS_S3_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID");
        assertThat(LocalStackMain.environmentName("queues.launch-requests.dead-letter-url"))
                .isEqualTo("QUEUES_LAUNCH_REQUESTS_DEAD_LETTER_URL");
    }

    @Test
    void aServerClassPathHoldsItsLauncherAndNativeLibrariesApart() {
        var dynamoDb = ServerClassPath.of("dynamodb-local",
                "org.carla.leaderboard.localstack.servers.dynamodb.DynamoDbLocalLauncher");
        assertThat(dynamoDb.entries()).allMatch(Files::exists)
                .noneMatch(entry -> entry.toString().endsWith(".so"));
        assertThat(dynamoDb.nativeLibraries()).anyMatch(library -> library.toString().contains("sqlite4java"));

        assertThatThrownBy(() -> ServerClassPath.of("elasticmq", "org.example.NoSuchLauncher"))
                .hasMessageContaining("has no org.example.NoSuchLauncher").hasMessageContaining("./mvnw");
        assertThatThrownBy(() -> ServerClassPath.of("redis")).hasMessageContaining("META-INF/local-stack/redis.classpath");
        assertThat(List.of(dynamoDb.asArgument().split(java.io.File.pathSeparator))).hasSize(dynamoDb.entries().size());
    }
}
