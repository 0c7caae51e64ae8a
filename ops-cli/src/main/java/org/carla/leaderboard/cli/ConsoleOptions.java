package org.carla.leaderboard.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/** Where the console is and how the operator signs in; shared by every command. */
final class ConsoleOptions {

    @Option(names = "--url", defaultValue = "${OPS_CONSOLE_URL:-http://127.0.0.1:8080}",
            description = "ops-console's address (env OPS_CONSOLE_URL; default ${DEFAULT-VALUE}, a kubectl port-forward)")
    String url;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "a file holding the operator's token (default: env OPS_TOKEN; never on the command line)")
    Path tokenFile;

    ConsoleApi api() {
        return new ConsoleApi(url, ConsoleApi.token(tokenFile, System.getenv()));
    }
}
