package org.carla.leaderboard.localstack;

import java.util.List;

import org.carla.leaderboard.localstack.aws.DynamoDbLocalServer;
import org.carla.leaderboard.localstack.aws.ElasticMqServer;
import org.carla.leaderboard.localstack.aws.S3ProxyServer;

/** The components {@code LocalStack.builder().components(...)} knows by name, in their listing order. */
final class StackComponents {

    static final List<String> ALL = List.of(ElasticMqServer.NAME, DynamoDbLocalServer.NAME, S3ProxyServer.NAME,
            EvalAiComponent.NAME, KubernetesComponent.NAME);

    private StackComponents() {
    }

    static StackComponent create(String name) {
        return switch (name) {
            case ElasticMqServer.NAME -> new ElasticMqServer();
            case DynamoDbLocalServer.NAME -> new DynamoDbLocalServer();
            case S3ProxyServer.NAME -> new S3ProxyServer();
            case EvalAiComponent.NAME -> new EvalAiComponent();
            case KubernetesComponent.NAME -> new KubernetesComponent();
            default -> throw new IllegalArgumentException("unknown local-stack component '" + name + "'; known: "
                    + String.join(", ", ALL));
        };
    }
}
