package org.carla.leaderboard.localstack.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.carla.leaderboard.localstack.standin.EvaluatorStandIn;
import org.carla.leaderboard.localstack.standin.HeldRoute;

/**
 * What happens to one submission of the local run, and the final status EvalAI must show for it. The faults are
 * the stand-ins' per-submission knobs ({@code STANDIN_KNOBS_DIR}); the host's actions (cancel, resume) are the EvalAI
 * stand-in's host-side controls, driven by {@link SubmissionRun}; the GPU node group's are {@link NodeGroup}'s.
 */
public enum Scenario {

    /** Runs to the end. */
    HAPPY("FINISHED"),
    /** CARLA dies once mid-run; the pair restarts and resumes where it stopped. */
    CRASH("FINISHED"),
    /** The participant cancels on EvalAI once the first route is reported, while its second route lasts 4 minutes. */
    CANCEL("CANCELLED"),
    /** The evaluator crashes at the third route in every attempt of the first Job (FAILED), then the host resumes it. */
    RESUME("FINISHED"),
    /**
     * The agent's container is SIGKILLed as the third route starts (the OOM killer, an eviction: no crash file); it
     * restarts and resumes from its checkpoint.
     */
    KILLED("FINISHED"),
    /**
     * The node of its pod is lost once a route is reported, while its second route drives (the pod garbage collector
     * deletes the pod): the Job controller replaces the pod, whose fresh logs volume init fills from what the run has
     * in S3; the agent resumes from that checkpoint and drives no finished route again.
     */
    NODE_LOST("FINISHED"),
    /** The participant's image cannot be pulled: the run ends FAILED, naming the image and the registry's answer. */
    UNPULLABLE("FAILED"),
    /** Its pod waits for a GPU node longer than its track's deadline, then a node comes and it runs to the end. */
    CAPACITY("FINISHED"),
    /** Cancelled on EvalAI while its pod waits for a GPU node: the Job is deleted and the pod never runs. */
    CANCEL_PENDING("CANCELLED"),
    /** A team name EvalAI allows and little else does: NUL, U+FFFE, U+FFFF, a lone surrogate, shell characters. */
    TEAM_NAME("FINISHED"),
    /**
     * A hostile participant forges every status file at the second route: each pair's done files, logcopy's, and a
     * {@code simulation.cancel} nobody asked for. The pairs stop; the verdict is FAILED.
     */
    FORGED_STATUS("FAILED"),
    /**
     * A hostile participant scores every route NaN and, at the second route, puts links where logcopy writes
     * ({@code logcopy.done} to a file outside the volume, {@code evalai/} to a folder outside it), replaces the
     * simulator's log, leaves a file whose S3 key is too long and prints a line of 10 MB. All routes are driven; the
     * verdict is FAILED.
     */
    FORGED_SCORES("FAILED"),
    /**
     * A hostile participant makes its checkpoint a link to a results file outside the volume (full marks and a
     * secret) and {@code evalai/stdout.txt} a FIFO, after its last route. The verdict is FAILED: no route counts.
     */
    FORGED_LINKS("FAILED"),
    /**
     * A track whose two worker pairs claim their routes from the run's route ledger, the longest expected first: its
     * first two routes take {@link #CLAIMED_LONG} route times each, the others half of one. The static split would give
     * one pair both long routes.
     */
    CLAIMED("FINISHED"),
    /**
     * CLAIMED's track on a spot node, reclaimed once a route is filed while another drives: the node shuts down
     * ({@code DisruptionTarget}; SIGTERM to logcopy, then to the pairs' sidecars last first, within the pod's grace
     * period, then SIGKILL). logcopy gives back the claims in flight; the Job controller's replacement pod, not counted
     * against backoffLimit, drives those routes, and no finished one, again. Its
     * first route takes {@link #SPOT_LONG} route times, so it is in flight when the interruption comes.
     */
    SPOT("FINISHED"),
    /**
     * A track of {@link #PODS_PHASE}'s two pods of one pair each (an Indexed Job, a pod per GPU node): both claim from
     * the run's one route ledger, each route is driven once, and each pod's files are under its own {@code pod-<i>/}.
     */
    PODS("FINISHED");

    /** The route (its position in the routes file, from 0) at which the RESUME scenario's evaluator crashes in its first Job. */
    static final int RESUME_CRASH_ROUTE = 2;
    /** The route (position) at which the KILLED scenario's agent container is SIGKILLed. */
    public static final int KILLED_AT_ROUTE = 2;
    /** The route (position) at which the hostile scenarios forge their files (the second: one route is in the checkpoint). */
    static final int FORGED_AT_ROUTE = 1;
    /** The phase of the CAPACITY scenario: Leaderboard 1.0 SENSORS, whose deadline the local run makes short. */
    public static final long CAPACITY_PHASE = 1187;
    /** The phase of the CLAIMED scenario: Leaderboard 2.0 MAP_QUALIFIER, whose schedule the local run makes dynamic. */
    public static final long CLAIMED_PHASE = 2076;
    /** The phase of the PODS scenario: Leaderboard 2.0 MAP, which the local run makes two pods of one pair. */
    public static final long PODS_PHASE = 2078;
    /** The PODS scenario's pods. */
    public static final int PODS_OF_RUN = 2;
    /** How many route times the CLAIMED scenario's first two routes take. */
    static final int CLAIMED_LONG = 4;
    /** How many route times the SPOT scenario's first route takes; the others take one. */
    static final int SPOT_LONG = 10;
    /** The text the FORGED_LINKS participant hides outside the logs volume; it must reach no bucket and no EvalAI. */
    public static final String OUTSIDE_SECRET = "read from outside the logs volume";

    /** The four scenarios of {@code mixed}, the chaos run's: none of them holds the GPU node group. */
    static final List<Scenario> MIXED = List.of(HAPPY, CRASH, CANCEL, RESUME);

    private final String expectedStatus;

    Scenario(String expectedStatus) {
        this.expectedStatus = expectedStatus;
    }

    /** EvalAI's final status when everything works (upper case, as the progress and the table show it). */
    public String expectedStatus() {
        return expectedStatus;
    }

    /** The name on the command line and in the table: {@code cancel-pending}, {@code forged-status}... */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether its pod must wait for a GPU node: it is submitted once the others' pods are placed (see NodeGroup). */
    public boolean waitsForCapacity() {
        return this == CAPACITY || this == CANCEL_PENDING;
    }

    /** The participant's image of submission {@code index}: one no registry has for UNPULLABLE (LocalRunConfig). */
    public String image(int index) {
        return "registry.local/team-" + index + "/agent:" + label();
    }

    /** Whether its track's pairs claim their routes from the run's route ledger (CLAIMED's phase). */
    public boolean claimsRoutes() {
        return this == CLAIMED || this == SPOT || this == PODS;
    }

    /** Its track's phase: PODS', CAPACITY's or CLAIMED's own, else one of {@code others} by the submission's index. */
    long phase(int index, List<Long> others) {
        return switch (this) {
            case CAPACITY -> CAPACITY_PHASE;
            case PODS -> PODS_PHASE;
            case CLAIMED, SPOT -> CLAIMED_PHASE;
            default -> others.get((index - 1) % others.size());
        };
    }

    /** Whether a participant's hostile code plays a part in it. */
    public boolean hostile() {
        return this == FORGED_STATUS || this == FORGED_SCORES || this == FORGED_LINKS;
    }

    /**
     * Whether its pod runs at all: a submission cancelled while it waits for capacity never does, nor one whose image
     * cannot be pulled.
     */
    public boolean podRuns() {
        return this != CANCEL_PENDING && this != UNPULLABLE;
    }

    /** The team name EvalAI shows for submission {@code index} (from 1). */
    public String teamName(int index) {
        String name = "Team " + index + " (" + label() + ")";
        // Every character here is one EvalAI allows in a team name; "$(...)" would create the file if run by a shell.
        return this == TEAM_NAME ? name + " \u0000\uFFFE\uFFFF\uD800 $(touch team-name-ran) `id`; \"'<>{}\\ \u00c6tna"
                : name;
    }

    /** Where the hostile participant of submission {@code submissionId} puts its files "outside the logs volume". */
    public static Path outsideDir(Path stateDir, String submissionId) {
        return stateDir.resolve(submissionId + ".outside");
    }

    /**
     * The stand-ins' knobs of one submission in this scenario; state files go to {@code stateDir}. The evaluator's knobs
     * name routes by id: {@code routeIds} are its track's, in file order. {@code shownAt}: the submission on the EvalAI
     * stand-in's controls, where the evaluator sees what EvalAI shows ({@link #heldRoute}).
     */
    public Map<String, String> knobs(Path stateDir, String submissionId, LocalRunConfig config, List<String> routeIds,
            String shownAt) {
        var knobs = new HashMap<>(faults(stateDir, submissionId, config, routeIds));
        knobs.putAll(heldRoute(routeIds, shownAt));
        return Map.copyOf(knobs);
    }

    /**
     * The route that lasts until EvalAI shows what the scenario checks while the submission drives, however slowly a
     * loaded machine starts the pod and reports ({@link HeldRoute}): its results before the last route ends (partial
     * results come before the final ones), its first route before the second ends (NODE_LOST), a second route of 4
     * minutes that the cancel, sent once EvalAI shows the first route, cuts short (CANCEL).
     */
    private Map<String, String> heldRoute(List<String> routeIds, String shownAt) {
        String second = routeIds.get(1);
        String last = routeIds.get(routeIds.size() - 1);
        return switch (this) {
            // It never drives, or stops at its second route on its own forged cancel; or its routes' times are measured.
            case UNPULLABLE, CANCEL_PENDING, FORGED_STATUS, CLAIMED, SPOT -> Map.of();
            case CANCEL -> Map.of(HeldRoute.AT_ROUTE, second, HeldRoute.SECONDS, "240");
            case NODE_LOST -> Map.of(HeldRoute.AT_ROUTE, second, HeldRoute.UNTIL_SHOWN, shownAt,
                    HeldRoute.UNTIL_ROUTES, "1");
            // Its first Job crashes at its third route in every attempt: results are shown before it fails.
            case RESUME -> Map.of(HeldRoute.AT_ROUTE, second, HeldRoute.UNTIL_SHOWN, shownAt);
            default -> Map.of(HeldRoute.AT_ROUTE, last, HeldRoute.UNTIL_SHOWN, shownAt);
        };
    }

    /** The faults and the hostile actions of the scenario. */
    private Map<String, String> faults(Path stateDir, String submissionId, LocalRunConfig config,
            List<String> routeIds) {
        String outside = outsideDir(stateDir, submissionId).toString();
        String forgedAt = routeIds.get(FORGED_AT_ROUTE);
        return switch (this) {
            case HAPPY, CAPACITY, CANCEL, CANCEL_PENDING, TEAM_NAME, UNPULLABLE, PODS -> Map.of();
            // Dies while the second route drives (the first JVMs of a pod take a few seconds to start).
            case CRASH -> Map.of("CARLA_STANDIN_DIE_AFTER_SECONDS",
                    Long.toString(4 + config.routeTime().toSeconds() * 3 / 2),
                    "CARLA_STANDIN_DIE_ONCE_MARKER", stateDir.resolve(submissionId + ".carla-died").toString());
            // Once its node is lost (its second route held until EvalAI shows the first), the routes left take long
            // enough for the local run to lose it before the last starts.
            case NODE_LOST -> Map.of("EVALUATOR_STANDIN_ROUTE_SECONDS",
                    Long.toString(config.routeTime().toSeconds() * 5));
            case RESUME -> Map.of("EVALUATOR_STANDIN_CRASH_AT_ROUTE", routeIds.get(RESUME_CRASH_ROUTE),
                    "EVALUATOR_STANDIN_FAIL_POD_MARKER", stateDir.resolve(submissionId + ".evaluator-pod").toString());
            case KILLED -> Map.of("EVALUATOR_STANDIN_KILL_AGENT_AT_ROUTE", routeIds.get(KILLED_AT_ROUTE),
                    "EVALUATOR_STANDIN_FAIL_ONCE_MARKER", stateDir.resolve(submissionId + ".agent-killed").toString());
            case FORGED_STATUS -> hostile(outside, forgedAt, "forge-agent-done", "forge-simulator-done", "forge-cancel",
                    "forge-logcopy-done");
            case FORGED_SCORES -> hostile(outside, forgedAt, "score-nan", "logcopy-done-symlink",
                    "evalai-symlink-outside", "write-simulator-log", "long-s3-key", "log-line-10mb");
            case FORGED_LINKS -> hostile(outside, null, "results-symlink-outside", "evalai-fifo");
            // The stand-in routes 0 and 1 are the longest by length, so the ledger expects them to take longest.
            case CLAIMED -> Map.of(EvaluatorStandIn.ROUTE_SECONDS_BY_ID, claimedDurations(config, routeIds));
            case SPOT -> Map.of(EvaluatorStandIn.ROUTE_SECONDS_BY_ID, spotDurations(config, routeIds));
        };
    }

    /** The CLAIMED scenario's route times: {@code <id>:<seconds>,...}. */
    static String claimedDurations(LocalRunConfig config, List<String> routeIds) {
        double routeSeconds = config.routeTime().toMillis() / 1000.0;
        var times = new ArrayList<String>();
        for (int i = 0; i < routeIds.size(); i++) {
            times.add(routeIds.get(i) + ":" + (i < 2 ? routeSeconds * CLAIMED_LONG : routeSeconds / 2));
        }
        return String.join(",", times);
    }

    /** The SPOT scenario's route times: the first {@link #SPOT_LONG} route times, the others one. */
    static String spotDurations(LocalRunConfig config, List<String> routeIds) {
        double routeSeconds = config.routeTime().toMillis() / 1000.0;
        var times = new ArrayList<String>();
        for (int i = 0; i < routeIds.size(); i++) {
            times.add(routeIds.get(i) + ":" + (i == 0 ? routeSeconds * SPOT_LONG : routeSeconds));
        }
        return String.join(",", times);
    }

    /** The hostile actions, made when route {@code atRoute} (an id) starts, or after the last route when null. */
    private static Map<String, String> hostile(String outside, String atRoute, String... actions) {
        String list = String.join(",", actions);
        return atRoute != null
                ? Map.of("EVALUATOR_STANDIN_HOSTILE", list, "EVALUATOR_STANDIN_HOSTILE_AT_ROUTE", atRoute,
                        "EVALUATOR_STANDIN_HOSTILE_DIR", outside)
                : Map.of("EVALUATOR_STANDIN_HOSTILE", list, "EVALUATOR_STANDIN_HOSTILE_DIR", outside);
    }

    /** A scenario by its label ({@code cancel-pending}) or its name ({@code CANCEL_PENDING}). */
    public static Scenario of(String name) {
        String wanted = name.toLowerCase(Locale.ROOT).replace('_', '-');
        return Arrays.stream(values()).filter(s -> s.label().equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown scenario " + name + " (" + names() + ")"));
    }

    /** Every scenario's label, then {@code mixed} and {@code all}. */
    public static String names() {
        return Arrays.stream(values()).map(Scenario::label).collect(Collectors.joining(", ")) + ", mixed, all";
    }

    /**
     * The scenarios of a run: one scenario for every submission; {@code mixed}, which cycles through happy, crash,
     * cancel and resume; or {@code all}, which cycles through every scenario.
     */
    public static List<Scenario> plan(String name, int submissions) {
        if (submissions < 1) {
            throw new IllegalArgumentException("--submissions must be at least 1");
        }
        String lower = name.toLowerCase(Locale.ROOT);
        List<Scenario> cycle = lower.equals("mixed") ? MIXED : lower.equals("all") ? List.of(values())
                : List.of(of(name));
        var plan = new ArrayList<Scenario>();
        for (int i = 0; i < submissions; i++) {
            plan.add(cycle.get(i % cycle.size()));
        }
        return plan;
    }
}
