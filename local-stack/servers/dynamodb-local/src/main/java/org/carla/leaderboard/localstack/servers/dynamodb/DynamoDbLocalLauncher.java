package org.carla.leaderboard.localstack.servers.dynamodb;

import org.carla.leaderboard.localstack.servers.common.ServerLauncher;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;

/**
 * Runs DynamoDB Local with its own command line ({@code -inMemory -sharedDb -port N ...}) bound to one host only
 * (system property {@code dynamodb.local.bind-host}, default {@code 127.0.0.1}): its {@code ServerRunner} has no
 * such option and would listen on every interface. Behind its IAM gate ({@link ServerLauncher}).
 */
public final class DynamoDbLocalLauncher {

    private DynamoDbLocalLauncher() {
    }

    public static void main(String[] args) throws Exception {
        ServerLauncher.prepare();
        DynamoDBProxyServer server = ServerRunner.createServerFromCommandLineArgs(args);
        if (server == null) {
            return; // -help or -version: ServerRunner printed it
        }
        String host = System.getProperty("dynamodb.local.bind-host", "127.0.0.1");
        // The Jetty server is a private field with no accessor; this process runs DynamoDB Local only.
        var field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        var jetty = (Server) field.get(server);
        for (var connector : jetty.getConnectors()) {
            if (connector instanceof ServerConnector serverConnector) {
                serverConnector.setHost(host);
            }
        }
        server.start();
        System.out.println("DynamoDB Local listening on " + host);
    }
}
