package org.carla.leaderboard.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;

/** An action on one submission ({@code POST /api/submissions/{pk}/<action>}); the console decides and logs it. */
abstract class SubmissionAction implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Mixin
    SubmissionReference reference;

    abstract String action();

    @Override
    public Integer call() {
        return Run.safely(() -> ActionOutput.print(console.api().post(reference.path() + "/" + action(),
                reference.query(), null)));
    }
}
