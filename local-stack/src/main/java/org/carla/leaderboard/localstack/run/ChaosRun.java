package org.carla.leaderboard.localstack.run;

import java.time.Duration;
import java.util.List;

/**
 * The chaos run ({@code ./run-local.sh --chaos}): the submissions of a plan made one by one over the chaos window while
 * a {@link Chaos} of a seed plays on the system, then watched to their end, then judged ({@link ChaosVerdict}). The
 * caller stops the system and hands the verdict the processes left.
 */
public final class ChaosRun {

    /** Jobs live in this namespace of the local API server. */
    static final String NAMESPACE = "submissions";

    private ChaosRun() {
    }

    /**
     * Plays {@code chaos} while {@code plan}'s submissions are made and run; returns the verdict once every submission
     * ended (or {@code timeout} passed) and every outage is over.
     */
    public static ChaosVerdict play(LocalSystem system, LocalRun run, List<Scenario> plan, ChaosPlan chaos,
            Duration timeout, ProgressBoard board) throws InterruptedException {
        try (var jobs = new JobsSeen(system.stack().kubernetes(), NAMESPACE);
                var outages = new Chaos(system, chaos)) {
            run.schedule(plan, chaos.window());
            outages.start();
            boolean ended = run.await(timeout, board, runs -> { });
            // The last outages may outlast the submissions: they are part of the proof, so they are waited for.
            outages.awaitDone(chaos.window().plus(LocalSystem.READY_TIMEOUT));
            boolean noJobs = ended && run.awaitNoJobs(Duration.ofSeconds(60));
            return ChaosVerdict.of(run.runs(), ended, noJobs, system.stack(), jobs, outages);
        }
    }
}
