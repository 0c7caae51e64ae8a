package org.carla.leaderboard.localstack.servers.common;

import java.io.IOException;
import java.nio.file.Path;

import org.carla.leaderboard.localstack.gate.AccessGate;

/**
 * What every local server's launcher does before it runs its server: end the process when the local stack's end of
 * the stdin pipe closes (a killed test JVM leaves no server behind), and start the IAM gates the local stack
 * configured ({@value #GATES}, a file), which listen on the server's public ports. A gate that cannot start (its port
 * taken, a policy it cannot evaluate) ends the process with the reason on its output, before the server starts.
 */
public final class ServerLauncher {

    /** The system property naming the gates' configuration file. */
    public static final String GATES = "local-stack.gates";

    private ServerLauncher() {
    }

    public static void prepare() {
        exitWhenStdinCloses();
        String gates = System.getProperty(GATES);
        if (gates == null) {
            System.err.println("no " + GATES + ": this server is started by the local stack, behind its IAM gate");
            System.exit(2);
        }
        try {
            AccessGate.start(Path.of(gates));
        } catch (IOException | RuntimeException e) {
            // ServerProcess reads the log: "Address already in use" means another port is tried.
            System.err.println("the IAM gate did not start: " + e);
            System.exit(1);
        }
    }

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
