package org.carla.leaderboard.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "redrive", mixinStandardHelpOptions = true,
        description = "Move dead letters back to the queue they came from: the ones named, or all.")
class RedriveCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Parameters(paramLabel = "QUEUE", description = "submissions, launch-requests, submission-events or progress-reports")
    String queue;

    @ArgGroup(multiplicity = "1")
    Which which;

    static class Which {
        @Option(names = "--message", paramLabel = "ID", description = "a dead letter's message id (repeatable)")
        List<String> messages;

        @Option(names = "--all", description = "every dead letter of the queue (up to the console's bound)")
        boolean all;
    }

    @Override
    public Integer call() {
        return Run.safely(() -> ActionOutput.print(console.api().post("api/dead-letters/"
                + URLEncoder.encode(queue, StandardCharsets.UTF_8) + "/redrive", Map.of(),
                which.all ? Map.of("all", true) : Map.of("message_ids", which.messages))));
    }
}
