package org.carla.leaderboard.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A submission as the commands name it: its EvalAI pk, and optionally its team and leaderboard (saves a lookup). */
final class SubmissionReference {

    @Parameters(paramLabel = "SUBMISSION", description = "the submission's EvalAI pk")
    long submission;

    @Option(names = "--team", description = "its team's id (saves a lookup)")
    String team;

    @Option(names = "--leaderboard", description = "its leaderboard, e.g. leaderboard-20 (saves a lookup)")
    String leaderboard;

    String path() {
        return "api/submissions/" + submission;
    }

    Map<String, String> query() {
        var query = new LinkedHashMap<String, String>();
        query.put("team", team);
        query.put("leaderboard", leaderboard);
        return query;
    }
}
