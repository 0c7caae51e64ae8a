package org.carla.leaderboard.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancel a submission on EvalAI, as its own cancel button does; the run then stops and ends CANCELLED.")
class CancelCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Parameters(paramLabel = "SUBMISSION", description = "the submission's EvalAI pk")
    long submission;

    @Option(names = "--team", description = "its team's id (saves a lookup)")
    String team;

    @Option(names = "--leaderboard", description = "its leaderboard, e.g. leaderboard-20 (saves a lookup)")
    String leaderboard;

    @Override
    public Integer call() {
        return Run.safely(() -> ActionOutput.print(console.api().post("api/submissions/" + submission + "/cancel",
                SubmissionsCommand.where(team, leaderboard), null)));
    }
}
