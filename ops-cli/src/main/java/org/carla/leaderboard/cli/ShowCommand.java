package org.carla.leaderboard.cli;

import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "show", mixinStandardHelpOptions = true,
        description = "One submission: its runs, status changes, worker pairs, EvalAI's status, why it failed.")
class ShowCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Mixin
    SubmissionReference reference;

    @Option(names = "--logs", description = "also print the last lines of each container's log")
    boolean logs;

    @Override
    public Integer call() {
        return Run.safely(() -> {
            JsonNode view = console.api().get(reference.path(), reference.query());
            JsonNode s = view.get("summary");
            System.out.println("submission " + Text.field(s, "submission_id") + " of " + Text.field(s, "team_name")
                    + " (team " + Text.field(s, "team_id") + "), " + Text.field(s, "leaderboard") + " "
                    + Text.field(s, "track"));
            System.out.println("status " + Text.field(s, "status") + ", run " + Text.field(s, "run") + ", EvalAI "
                    + Text.field(view, "eval_ai_status") + ", routes " + Text.field(s, "routes_done") + "/"
                    + Text.field(s, "routes_total") + ", GPU-hours " + Text.field(s, "gpu_hours"));
            if (s.hasNonNull("stuck_reason")) {
                System.out.println("STUCK: " + Text.field(s, "stuck_reason"));
            }
            System.out.println("status changes:");
            for (JsonNode change : view.get("history")) {
                System.out.println("  " + Text.field(change, "at") + "  run " + Text.field(change, "run") + "  "
                        + Text.field(change, "status") + "  by " + Text.field(change, "by") + "  "
                        + Text.field(change, "detail"));
            }
            System.out.println("worker pairs:");
            for (JsonNode pair : view.get("pairs")) {
                System.out.println(pairLine(pair));
            }
            if (view.hasNonNull("failure_reason")) {
                System.out.println("the participant was told: " + Text.field(view, "failure_reason"));
            }
            System.out.println("cancel: " + (view.hasNonNull("cancel") ? Text.field(view, "cancel") : "possible")
                    + "; resume: " + (view.hasNonNull("resume") ? Text.field(view, "resume") : "possible"));
            if (logs) {
                for (JsonNode log : view.get("logs")) {
                    System.out.println("--- " + inPod(log) + Text.field(log, "container"));
                    log.get("tail").asText().lines().map(Text::printable).forEach(System.out::println);
                }
            }
        });
    }

    /** A worker pair's line: {@code pair 2: running, ...}, {@code pod 1 pair 2: ...} in a run of several pods. */
    static String pairLine(JsonNode pair) {
        return "  " + inPod(pair) + "pair " + Text.field(pair, "pair") + ": " + Text.field(pair, "state")
                + ", attempt " + Text.field(pair, "attempt") + ", " + Text.field(pair, "crashes") + " crash files";
    }

    private static String inPod(JsonNode node) {
        return node.hasNonNull("pod") ? "pod " + Text.field(node, "pod") + " " : "";
    }
}
