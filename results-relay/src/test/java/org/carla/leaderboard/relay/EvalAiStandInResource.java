package org.carla.leaderboard.relay;

import java.util.Map;
import java.util.UUID;

import org.carla.leaderboard.localstack.evalai.EvalAiOptions;
import org.carla.leaderboard.localstack.evalai.EvalAiStandIn;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Interim, until the local stack runs the EvalAI stand-in as its {@code evalai} component: starts the stand-in on a
 * free loopback port and points the relay's REST client at it.
 */
public class EvalAiStandInResource implements QuarkusTestResourceLifecycleManager {

    private static volatile EvalAiStandIn standIn;

    static EvalAiStandIn standIn() {
        return standIn;
    }

    @Override
    public synchronized Map<String, String> start() {
        String token = UUID.randomUUID().toString();
        if (standIn != null) {
            standIn.close();
        }
        standIn = EvalAiStandIn.start(EvalAiOptions.builder(token, body -> {
        }).build());
        return Map.of("quarkus.rest-client.evalai.url", standIn.url(), "evalai.token", token);
    }

    @Override
    public synchronized void stop() {
        if (standIn != null) {
            standIn.close();
            standIn = null;
        }
    }
}
