package org.carla.leaderboard.localstack.servers.s3proxy;

import java.io.IOException;

/**
 * Runs S3Proxy ({@code org.gaul.s3proxy.Main --properties <file>}) in the process the local stack starts, and ends
 * that process when the local stack's end of the stdin pipe closes: a killed test JVM leaves no server behind.
 */
public final class S3ProxyLauncher {

    private S3ProxyLauncher() {
    }

    public static void main(String[] args) throws Exception {
        exitWhenStdinCloses();
        org.gaul.s3proxy.Main.main(args);
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
