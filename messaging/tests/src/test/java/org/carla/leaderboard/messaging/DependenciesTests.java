package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** A dependency's outage as the service reports it: a gauge, the wellness check, one line when it starts and ends. */
class DependenciesTests {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Dependencies dependencies = new Dependencies(registry);

    double gauge(String dependency) {
        return registry.get("leaderboard.dependency.up").tag("dependency", dependency).gauge().value();
    }

    @Test
    void aDependencyIsUpUntilACallFailsAndUpAgainWhenOneAnswers() {
        Dependency evalAi = dependencies.get(Dependencies.EVALAI);
        assertThat(gauge("evalai")).isEqualTo(1.0);
        assertThat(dependencies.wellness().call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);

        evalAi.failed(new IllegalStateException("EvalAI answered 503"));
        evalAi.failed("EvalAI answered 502");

        assertThat(gauge("evalai")).isZero();
        var state = evalAi.state();
        assertThat(state.up()).isFalse();
        assertThat(state.downSince()).isNotNull();
        assertThat(state.error()).isEqualTo("EvalAI answered 502");
        var wellness = dependencies.wellness().call();
        assertThat(wellness.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat((String) wellness.getData().orElseThrow().get("evalai")).startsWith("down since ")
                .endsWith(": EvalAI answered 502");

        evalAi.answered();

        assertThat(gauge("evalai")).isEqualTo(1.0);
        assertThat(evalAi.state().downSince()).isNull();
        assertThat(dependencies.wellness().call().getData().orElseThrow()).containsEntry("evalai", "up");
    }

    @Test
    void eachDependencyHasItsOwnStateAndOneInstance() {
        assertThat(dependencies.get(Dependencies.DYNAMODB)).isSameAs(dependencies.get(Dependencies.DYNAMODB));
        dependencies.get(Dependencies.DYNAMODB).observed(false, "ResourceNotFoundException\u0000");
        dependencies.get(Dependencies.SQS).observed(true, null);

        assertThat(gauge("dynamodb")).isZero();
        assertThat(gauge("sqs")).isEqualTo(1.0);
        assertThat(dependencies.get(Dependencies.DYNAMODB).state().error()).isEqualTo("ResourceNotFoundException\\u0000");
        assertThat(dependencies.states()).extracting(Dependency.DependencyState::name).containsExactly("dynamodb", "sqs");
    }
}
