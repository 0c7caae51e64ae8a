package org.carla.leaderboard.localstack;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.track.EvaluationConfig;
import org.carla.leaderboard.localstack.aws.StackAccess;

/**
 * What a {@link StackComponent} gets when it starts.
 *
 * @param workDir       the component's own folder inside the stack's work dir (created; logs and data go there)
 * @param port          the port to listen on, or 0 for a free one of the component's choosing
 * @param access        who may call the stack's AWS servers: each principal's keys and policies, from deploy/aws
 * @param region        the AWS region every client uses
 * @param evaluation    the leaderboards and phases: the domain's defaults, deploy/'s storage names, the overrides
 * @param queues        the SQS queue names to provision, each with a {@code <name>-dlq}
 * @param endpoints     the endpoints of the components already started, by name
 * @param quarkusConfig the Quarkus configuration of the components already started (e.g. {@code queues.<name>.url})
 * @param settings      the stack's own {@code local-stack.*} settings (e.g. the Job runner's image profiles)
 */
public record StackContext(
        Path workDir,
        int port,
        StackAccess access,
        String region,
        EvaluationConfig evaluation,
        List<String> queues,
        Map<String, URI> endpoints,
        Map<String, String> quarkusConfig,
        Map<String, String> settings) {

    public StackContext {
        queues = List.copyOf(queues);
        endpoints = Map.copyOf(endpoints);
        quarkusConfig = Map.copyOf(quarkusConfig);
        settings = Map.copyOf(settings);
    }

    /** The administrator's keys: what the stack itself provisions with. */
    public StackCredentials credentials() {
        return access.administrator();
    }

    /** The endpoint of a component started before this one; fails clearly when it was not. */
    public URI endpoint(String name) {
        var endpoint = endpoints.get(name);
        if (endpoint == null) {
            throw new IllegalStateException("component '" + name + "' is not running; started so far: " + endpoints.keySet());
        }
        return endpoint;
    }
}
