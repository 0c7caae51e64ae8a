package org.carla.leaderboard.localstack.servers.dynamodb;

import java.io.IOException;

import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;

/**
 * Runs DynamoDB Local with its own command line ({@code -inMemory -sharedDb -port N ...}) bound to one host only
 * (system property {@code dynamodb.local.bind-host}, default {@code 127.0.0.1}): its {@code ServerRunner} has no
 * such option and would listen on every interface. Ends the process when the local stack's end of the stdin pipe
 * closes, so a killed test JVM leaves no server behind.
 */
public final class DynamoDbLocalLauncher {

    private DynamoDbLocalLauncher() {
    }

    public static void main(String[] args) throws Exception {
        exitWhenStdinCloses();
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

    // Duplicated in each server module on purpose: the modules share no parent and no library (see local-stack/README.md).
    private static void exitWhenStdinCloses() {
        var watch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the local stack never writes; only the end of the stream matters
                }
            } catch (IOException e) {
                // a broken pipe also means the local stack is gone
            }
            System.exit(0);
        }, "local-stack-parent-watch");
        watch.setDaemon(true);
        watch.start();
    }
}
