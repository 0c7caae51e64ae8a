package org.carla.leaderboard.localstack.servers.s3proxy;

import org.carla.leaderboard.localstack.servers.common.ServerLauncher;

/**
 * Runs S3Proxy ({@code org.gaul.s3proxy.Main --properties <file>}) in the process the local stack starts, behind its
 * IAM gate ({@link ServerLauncher}), which checks the signatures (S3Proxy itself runs without authorization).
 */
public final class S3ProxyLauncher {

    private S3ProxyLauncher() {
    }

    public static void main(String[] args) throws Exception {
        ServerLauncher.prepare();
        org.gaul.s3proxy.Main.main(args);
    }
}
