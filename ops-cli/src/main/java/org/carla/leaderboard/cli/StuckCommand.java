package org.carla.leaderboard.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "stuck", mixinStandardHelpOptions = true,
        description = "List the stuck submissions, each with the rule it breaks and what would mend it.")
class StuckCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Override
    public Integer call() {
        return Run.safely(() -> {
            var stuck = console.api().get("api/stuck", java.util.Map.of());
            if (stuck.isEmpty()) {
                System.out.println("no stuck submission");
            }
            for (var row : stuck) {
                System.out.println(Text.field(row, "submission_id") + "  " + Text.field(row, "leaderboard") + "  "
                        + Text.field(row, "status") + "  " + Text.field(row, "stuck") + ": "
                        + Text.field(row, "stuck_reason"));
            }
        });
    }
}
