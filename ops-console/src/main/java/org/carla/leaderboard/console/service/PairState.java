package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.console.client.Cluster.ContainerView;
import org.carla.leaderboard.domain.layout.SubmissionFiles.StatusFile;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.domain.status.StatusFiles;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One worker pair of the current run, from the status files its containers left in S3 (the container protocol) and,
 * while the pod exists, its containers' states: {@code done} (both done files), {@code running} (attempt K+1 after K
 * crashes), {@code cancelled} (logcopy wrote {@code simulation.cancel}), {@code crashed} (K crash files, not running
 * now), {@code waiting} (not started, or between restarts).
 *
 * @param attempt  which attempt of the pair this is (1 + its crash files)
 * @param crashes  the crash files of the pair's two containers
 * @param events   the pair's status files in time order, for the timeline
 * @param pod      the completion index of the pair's pod in a run of several pods; {@code null} in a run of one
 */
@RegisterForReflection
public record PairState(int pair, String state, int attempt, int crashes, String agent, String simulator,
        List<Event> events, Integer pod) {

    /** A status file of the pair, when S3 received it. */
    @RegisterForReflection
    public record Event(String file, Instant at) {
    }

    /**
     * Every pair 1..{@code pairs} of one pod: {@code pod} its completion index ({@code null} in a run of one pod),
     * {@code files} the status files in its folder, {@code containers} its containers.
     */
    public static List<PairState> of(Integer pod, int pairs, List<StatusFile> files, List<ContainerView> containers) {
        var names = files.stream().map(StatusFile::name).toList();
        var states = new ArrayList<PairState>();
        for (int pair = 1; pair <= pairs; pair++) {
            states.add(of(pod, pair, names, files, containers));
        }
        return states;
    }

    private static PairState of(Integer pod, int pair, List<String> names, List<StatusFile> files,
            List<ContainerView> containers) {
        boolean done = names.contains(StatusFiles.done(Role.AGENT, pair))
                && names.contains(StatusFiles.done(Role.SIMULATOR, pair));
        int crashes = StatusFiles.crashCount(names, Role.AGENT, pair) + StatusFiles.crashCount(names, Role.SIMULATOR,
                pair);
        int attemptCrashes = Math.max(StatusFiles.crashCount(names, Role.AGENT, pair),
                StatusFiles.crashCount(names, Role.SIMULATOR, pair));
        var agent = container(containers, Role.AGENT.container(pair));
        var simulator = container(containers, Role.SIMULATOR.container(pair));
        boolean running = agent.map(c -> "running".equals(c.state())).orElse(false)
                || simulator.map(c -> "running".equals(c.state())).orElse(false);
        boolean cancelled = names.contains(StatusFiles.SIMULATION_CANCEL);
        String state = done ? "done" : running ? "running" : cancelled ? "cancelled" : crashes > 0 ? "crashed"
                : "waiting";
        String prefix = Role.AGENT.container(pair) + ".";
        String simulatorPrefix = Role.SIMULATOR.container(pair) + ".";
        var events = files.stream().filter(f -> f.name().startsWith(prefix) || f.name().startsWith(simulatorPrefix))
                .map(f -> new Event(f.name(), f.at())).toList();
        return new PairState(pair, state, attemptCrashes + 1, crashes, describe(agent), describe(simulator), events,
                pod);
    }

    private static Optional<ContainerView> container(List<ContainerView> containers, String name) {
        return containers.stream().filter(c -> name.equals(c.name())).findFirst();
    }

    private static String describe(Optional<ContainerView> container) {
        return container.map(c -> c.state() + (c.reason() == null ? "" : " (" + c.reason() + ")")
                + (c.exitCode() == null ? "" : " exit " + c.exitCode())
                + (c.restartCount() == 0 ? "" : ", " + c.restartCount() + " restarts")).orElse(null);
    }
}
