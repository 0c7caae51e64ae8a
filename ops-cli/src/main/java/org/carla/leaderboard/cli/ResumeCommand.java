package org.carla.leaderboard.cli;

import picocli.CommandLine.Command;

@Command(name = "resume", mixinStandardHelpOptions = true,
        description = "Resume a failed submission on EvalAI (status resuming): a new run that keeps the routes "
                + "already driven.")
class ResumeCommand extends SubmissionAction {

    @Override
    String action() {
        return "resume";
    }
}
