package org.carla.leaderboard.cli;

import picocli.CommandLine.Command;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancel a submission on EvalAI, as its own cancel button does; the run then stops and ends "
                + "CANCELLED.")
class CancelCommand extends SubmissionAction {

    @Override
    String action() {
        return "cancel";
    }
}
