package org.carla.leaderboard.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "submissions", mixinStandardHelpOptions = true,
        description = "List the submissions of the last days: run, status, routes, times, GPU-hours, Job and pod.")
class SubmissionsCommand implements Callable<Integer> {

    @Mixin
    ConsoleOptions console;

    @Option(names = "--status", description = "SUBMITTED, PENDING, RUNNING, FINISHED, FAILED or CANCELLED")
    String status;

    @Option(names = "--track", description = "a track's codename, e.g. SENSORS")
    String track;

    @Option(names = "--team", description = "a team's id, or part of its name")
    String team;

    @Override
    public Integer call() {
        return Run.safely(() -> {
            var query = new java.util.LinkedHashMap<String, String>();
            query.put("status", status);
            query.put("track", track);
            query.put("team", team);
            JsonNode listing = console.api().get("api/submissions", query);
            System.out.print(rows(listing.get("submissions")));
            for (JsonNode truncated : listing.get("truncated")) {
                System.out.println("(only the first records of " + truncated.asText() + " were read)");
            }
            for (JsonNode problem : listing.get("problems")) {
                System.out.println("cannot read: " + problem.asText());
            }
        });
    }

    static String rows(JsonNode submissions) {
        var rows = new ArrayList<List<String>>();
        for (JsonNode s : submissions) {
            rows.add(List.of(Text.field(s, "submission_id"), Text.field(s, "team_name") + " (" + Text.field(s,
                    "team_id") + ")", Text.field(s, "leaderboard"), Text.field(s, "track"), Text.field(s, "run"),
                    Text.field(s, "status") + (s.hasNonNull("stuck") ? " STUCK" : ""),
                    s.hasNonNull("routes_total") ? Text.field(s, "routes_done") + "/" + Text.field(s, "routes_total")
                            : "-",
                    Text.duration(s.get("waiting_seconds")), Text.duration(s.get("running_seconds")),
                    s.hasNonNull("gpu_hours") ? String.format("%.2f", s.get("gpu_hours").asDouble()) : "-",
                    Text.field(s, "pod_phase")));
        }
        return Text.table(List.of("SUBMISSION", "TEAM", "LEADERBOARD", "TRACK", "RUN", "STATUS", "ROUTES", "WAITED",
                "RAN", "GPU-H", "POD"), rows);
    }
}
