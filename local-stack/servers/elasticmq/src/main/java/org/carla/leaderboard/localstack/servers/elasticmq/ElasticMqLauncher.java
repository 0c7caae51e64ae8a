package org.carla.leaderboard.localstack.servers.elasticmq;

import java.io.IOException;

/**
 * Runs ElasticMQ ({@code org.elasticmq.server.Main}, configured by {@code -Dconfig.file}) in the process the local
 * stack starts, and ends that process when the local stack's end of the stdin pipe closes: a killed test JVM leaves
 * no server behind.
 */
public final class ElasticMqLauncher {

    private ElasticMqLauncher() {
    }

    public static void main(String[] args) {
        exitWhenStdinCloses();
        org.elasticmq.server.Main.main(args);
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
