package org.carla.leaderboard.localstack.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What happens to one submission of the local run, and the final status EvalAI must show for it. The faults are
 * the stand-ins' per-submission knobs ({@code STANDIN_KNOBS_DIR}); the host's actions (cancel, resume) are the EvalAI
 * stand-in's host-side controls, driven by {@link SubmissionRun}.
 */
public enum Scenario {

    /** Runs to the end. */
    HAPPY("FINISHED"),
    /** CARLA dies once mid-run; the pair restarts and resumes where it stopped. */
    CRASH("FINISHED"),
    /** The participant cancels on EvalAI once the first route is reported. */
    CANCEL("CANCELLED"),
    /** The evaluator crashes at the third route in every attempt of the first Job (FAILED), then the host resumes it. */
    RESUME("FINISHED");

    /** The route at which the RESUME scenario's evaluator crashes in its first Job. */
    static final String RESUME_CRASH_ROUTE = "2";

    private final String expectedStatus;

    Scenario(String expectedStatus) {
        this.expectedStatus = expectedStatus;
    }

    /** EvalAI's final status when everything works (upper case, as the progress and the table show it). */
    public String expectedStatus() {
        return expectedStatus;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The stand-ins' knobs of one submission in this scenario; state files go to {@code stateDir}. */
    Map<String, String> knobs(Path stateDir, String submissionId, LocalRunConfig config) {
        return switch (this) {
            case HAPPY -> Map.of();
            // Dies while the second route drives (the first JVMs of a pod take a few seconds to start).
            case CRASH -> Map.of("CARLA_STANDIN_DIE_AFTER_SECONDS",
                    Long.toString(4 + config.routeTime().toSeconds() * 3 / 2),
                    "CARLA_STANDIN_DIE_ONCE_MARKER", stateDir.resolve(submissionId + ".carla-died").toString());
            // Slower routes leave time to cancel before the end.
            case CANCEL -> Map.of("EVALUATOR_STANDIN_ROUTE_SECONDS", Long.toString(config.routeTime().toSeconds() * 3));
            case RESUME -> Map.of("EVALUATOR_STANDIN_CRASH_AT_ROUTE", RESUME_CRASH_ROUTE,
                    "EVALUATOR_STANDIN_FAIL_POD_MARKER", stateDir.resolve(submissionId + ".evaluator-pod").toString());
        };
    }

    /**
     * The scenarios of a run: {@code happy|crash|cancel|resume} for every submission, or {@code mixed}, which cycles
     * through all four.
     */
    public static List<Scenario> plan(String name, int submissions) {
        if (submissions < 1) {
            throw new IllegalArgumentException("--submissions must be at least 1");
        }
        var plan = new ArrayList<Scenario>();
        String lower = name.toLowerCase(Locale.ROOT);
        for (int i = 0; i < submissions; i++) {
            if (lower.equals("mixed")) {
                plan.add(values()[i % values().length]);
            } else {
                try {
                    plan.add(valueOf(name.toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("unknown scenario " + name
                            + " (happy, crash, cancel, resume, mixed)");
                }
            }
        }
        return plan;
    }
}
