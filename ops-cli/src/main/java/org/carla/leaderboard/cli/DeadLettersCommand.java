package org.carla.leaderboard.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        description = "List a queue's dead letters with their reasons (looking leaves them all there).")
class DeadLettersCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Parameters(paramLabel = "QUEUE", description = "submissions, launch-requests, submission-events or progress-reports")
    String queue;

    @Override
    public Integer call() {
        return Run.safely(() -> {
            var letters = console.api().get("api/dead-letters/" + URLEncoder.encode(queue, StandardCharsets.UTF_8),
                    java.util.Map.of());
            if (letters.isEmpty()) {
                System.out.println("no dead letter in " + queue);
            }
            for (var letter : letters) {
                System.out.println(Text.field(letter, "message_id") + "  " + Text.field(letter, "dead_lettered_at")
                        + "  " + Text.field(letter, "reason") + ": " + Text.field(letter, "error"));
                System.out.println("    " + Text.field(letter, "body"));
            }
        });
    }
}
