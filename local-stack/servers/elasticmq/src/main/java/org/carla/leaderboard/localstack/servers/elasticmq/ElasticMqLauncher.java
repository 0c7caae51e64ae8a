package org.carla.leaderboard.localstack.servers.elasticmq;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;

import org.carla.leaderboard.localstack.servers.common.ServerLauncher;

/**
 * Runs ElasticMQ ({@code org.elasticmq.server.Main}, configured by {@code -Dconfig.file}) in the process the local
 * stack starts, behind its IAM gate ({@link ServerLauncher}). With {@value #CLOUDWATCH_PORT}, the same process serves
 * its queues' CloudWatch metrics ({@link CloudWatchStandIn}), as SQS publishes them.
 */
public final class ElasticMqLauncher {

    private ElasticMqLauncher() {
    }

    /** The CloudWatch stand-in's port; absent: none. */
    static final String CLOUDWATCH_PORT = "local-stack.cloudwatch.port";
    /** How often the queues' metrics are measured, in seconds (SQS: 60). */
    static final String CLOUDWATCH_EVERY = "local-stack.cloudwatch.every-seconds";
    /** The JDBC URL of ElasticMQ's message store ({@code messages-storage.uri}), which the metrics are measured from. */
    static final String MESSAGES_DATABASE = "local-stack.messages-database";

    public static void main(String[] args) throws IOException {
        ServerLauncher.prepare();
        String port = System.getProperty(CLOUDWATCH_PORT);
        if (port != null) {
            // Bound before SQS answers, so a stack that sees SQS ready sees its metrics' endpoint ready too.
            var metrics = new QueueMetrics(System.getProperty(MESSAGES_DATABASE),
                    Duration.ofSeconds(Long.getLong(CLOUDWATCH_EVERY, 60)), Duration.ofHours(24), Clock.systemUTC());
            new CloudWatchStandIn(Integer.parseInt(port), metrics).start();
            metrics.start();
        }
        org.elasticmq.server.Main.main(args);
    }
}
