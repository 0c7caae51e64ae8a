package org.carla.leaderboard.cli;

import io.quarkus.picocli.runtime.annotations.TopCommand;
import picocli.CommandLine.Command;

/** {@code ops}: the operators' command line over ops-console's API; one subcommand per thing an operator does. */
@TopCommand
@Command(name = "ops", mixinStandardHelpOptions = true, version = "ops 1.0",
        description = "See and steer the leaderboard's submissions through ops-console (the same API as its page).",
        subcommands = { SubmissionsCommand.class, ShowCommand.class, CancelCommand.class, ResumeCommand.class,
                StuckCommand.class, HealthCommand.class, DeadLettersCommand.class, RedriveCommand.class },
        footer = { "", "Exit status: 0 done (or done already), 1 refused (nothing changed), 2 bad usage, 3 ops-console unreachable.",
                "Every command takes --url and --token-file; the token comes from env OPS_TOKEN otherwise.",
                "Every action is logged by ops-console with the operator's identity." })
public class OpsCommand {
}
