package org.carla.leaderboard.podruntime.cli;

import io.quarkus.picocli.runtime.annotations.TopCommand;


import picocli.CommandLine.Command;

/** pod-runtime: one executable, one sub-command per role of a submission's Job. */
@TopCommand
@Command(name = "pod-runtime", mixinStandardHelpOptions = true,
        description = "Supervises the real process of one container of a submission's Job.",
        subcommands = {
            InstallCommand.class,
            CarlaVersionCommand.class,
            InitCommand.class,
            SimulatorCommand.class,
            AgentCommand.class,
            LogcopyCommand.class,
            MergeResultsCommand.class,
            EvalAiFilesCommand.class,
        })
public class PodRuntimeCommand {
}
