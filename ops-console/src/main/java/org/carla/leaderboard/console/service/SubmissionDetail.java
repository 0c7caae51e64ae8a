package org.carla.leaderboard.console.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.SubmissionRecord.StatusChange;
import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.client.Cluster.ContainerView;
import org.carla.leaderboard.console.client.Cluster.JobView;
import org.carla.leaderboard.console.client.Cluster.PodView;
import org.carla.leaderboard.console.client.EvalAiHost;
import org.carla.leaderboard.console.client.RouteLedgers;
import org.carla.leaderboard.console.config.ConsoleConfig;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionFiles.StatusFile;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.jboss.logging.Logger;

/**
 * One submission in detail: the record, its runs, its pairs, the tail of each container's log, what was sent to EvalAI
 * and what EvalAI shows now, what the current run ran (images by digest, versions), and, when the track's routes are
 * claimed, every attempt at a route of the current run. Reads S3 (a listing, one ranged GET per container, the
 * results file, the run's versions until the record holds them), EvalAI (one read) and the route ledger (one Query of
 * the run's partition) each time it is asked.
 */
@ApplicationScoped
public class SubmissionDetail {

    /** The service that writes the EvalAI updates into the history. */
    static final String RELAY = "results-relay";
    /** A phase's id as the record keeps it (EvalAI's primary key, digits); anything else names no track. */
    private static final Pattern PHASE = Pattern.compile("[0-9]{1,18}");
    private static final Logger LOG = Logger.getLogger(SubmissionDetail.class);

    private final Looks looks;
    private final SubmissionOverview overview;
    private final SubmissionFiles files;
    private final EvalAiHost evalAi;
    private final RouteLedgers ledgers;
    private final TrackCatalog catalog;
    private final ConsoleConfig config;

    SubmissionDetail(Looks looks, SubmissionOverview overview, SubmissionFiles files, EvalAiHost evalAi,
            RouteLedgers ledgers, TrackCatalog catalog, ConsoleConfig config) {
        this.looks = looks;
        this.overview = overview;
        this.files = files;
        this.evalAi = evalAi;
        this.ledgers = ledgers;
        this.catalog = catalog;
        this.config = config;
    }

    public SubmissionView of(SubmissionLookup.Found found) {
        SubmissionRecord record = found.record();
        if (record == null) {
            throw new SubmissionLookup.UnknownSubmission("submission " + found.submissionId()
                    + " has no record yet in " + found.leaderboard());
        }
        var problems = new ArrayList<String>();
        Look look = looks.current();
        Optional<JobView> job = look.job(record);
        Optional<PodView> pod = job.flatMap(look::pod);
        List<PodView> pods = job.map(look::podsByIndex).orElse(List.of());
        var pairStates = new ArrayList<PairState>();
        var logs = new ArrayList<SubmissionView.ContainerLog>();
        for (int index = 0; index < record.pods(); index++) {
            Integer podIndex = record.pods() > 1 ? index : null;
            List<ContainerView> containers = podOf(pods, podIndex, pod).map(PodView::containers).orElse(List.of());
            List<StatusFile> statusFiles = List.of();
            try {
                statusFiles = files.statusFiles(found.bucket(), record.submissionId(), index, record.pods());
            } catch (RuntimeException e) {
                problems.add("S3 status files" + inPod(podIndex) + ": " + e.getMessage());
            }
            int pairs = pairs(record, containers, statusFiles);
            pairStates.addAll(PairState.of(podIndex, pairs, statusFiles, containers));
            for (String container : containers(pairs)) {
                try {
                    int i = index;
                    LogsLayout.containerLog(container).flatMap(log -> files.tail(found.bucket(),
                            record.submissionId(), SubmissionLayout.podPath(i, record.pods(), log),
                            config.logTail().maxBytes()))
                            .ifPresent(tail -> logs.add(new SubmissionView.ContainerLog(container,
                                    SubmissionFiles.lastLines(tail, config.logTail().maxLines()), podIndex)));
                } catch (RuntimeException e) {
                    problems.add("S3 log of " + container + inPod(podIndex) + ": " + e.getMessage());
                }
            }
        }
        Map<String, Double> accuracies = Map.of();
        try {
            accuracies = files.read(found.bucket(), record.submissionId(), LogsLayout.evalAiFile(EvalAiFiles.RESULTS))
                    .map(EvalAiFiles::snakeCaseAccuracies).orElse(Map.of());
        } catch (RuntimeException e) {
            problems.add("S3 EvalAI results: " + e.getMessage());
        }
        EvalAiStatus evalAiStatus = null;
        try {
            evalAiStatus = evalAi.status(Long.parseLong(record.submissionId()));
        } catch (RuntimeException e) {
            problems.add("EvalAI: " + e.getMessage());
            LOG.debugf("EvalAI status of %s unreadable: %s", record.submissionId(), e.getMessage());
        }
        List<RouteAttempt> routes = List.of();
        if (claimsRoutes(record)) {
            try {
                routes = RouteAttempt.of(ledgers.entries(record.leaderboard(), record.submissionId(), record.run()));
            } catch (RuntimeException e) {
                problems.add("route ledger: " + e.getMessage());
            }
        }
        RunVersions versions = record.versions();
        if (versions == null || versions.run() != record.run()) {
            try { // before the run's final report, the control object init wrote is the only copy
                versions = files.runVersions(found.bucket(), record.submissionId(), record.run()).orElse(null);
            } catch (RuntimeException e) {
                problems.add("S3 versions: " + e.getMessage());
            }
        }
        List<StatusChange> updates = record.history().stream().filter(change -> RELAY.equals(change.by())).toList();
        return new SubmissionView(overview.row(look, record), record.instanceType(), record.workerPairs(),
                record.phase(), record.challengeId(), record.resumes(), record.history(), RunView.of(record),
                pairStates, logs, updates,
                evalAiStatus == null ? "unreachable" : evalAiStatus.value(), accuracies, record.failureReason(),
                job.orElse(null), pod.orElse(null),
                ActionRules.cancel(record.submissionId(), record, evalAiStatus).unavailable().orElse(null),
                ActionRules.resume(record.submissionId(), record, evalAiStatus).unavailable().orElse(null), problems,
                routes, WhatRan.of(record.run(), record.images(), versions), pods);
    }

    /** The newest pod of completion index {@code index}; in a run of one pod ({@code null}), the Job's newest pod. */
    private static Optional<PodView> podOf(List<PodView> pods, Integer index, Optional<PodView> newest) {
        if (index == null) {
            return newest;
        }
        return pods.stream().filter(pod -> index.equals(pod.index())).findFirst();
    }

    private static String inPod(Integer index) {
        return index == null ? "" : " of pod " + index;
    }

    /** Whether the record's phase is a track whose runs claim their routes from a route ledger. */
    private boolean claimsRoutes(SubmissionRecord record) {
        String phase = record.phase();
        return phase != null && PHASE.matcher(phase).matches()
                && catalog.forPhase(Long.parseLong(phase)).filter(TrackSpec::claimsRoutes).isPresent();
    }

    /** The record's worker pairs; else as many as the pod or the status files show. */
    static int pairs(SubmissionRecord record, List<ContainerView> containers, List<StatusFile> statusFiles) {
        if (record.workerPairs() != null && record.workerPairs() > 0) {
            return Math.min(record.workerPairs(), 64);
        }
        int seen = 0;
        for (String name : containers.stream().map(ContainerView::name).toList()) {
            seen = Math.max(seen, pairOf(name));
        }
        for (StatusFile file : statusFiles) {
            seen = Math.max(seen, pairOf(file.name()));
        }
        return Math.min(Math.max(seen, 1), 64);
    }

    private static int pairOf(String name) {
        var matcher = java.util.regex.Pattern.compile("(?:agent|simulator)-([0-9]{1,2})(?:\\..*)?").matcher(name);
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) : 0;
    }

    private static List<String> containers(int pairs) {
        var names = new ArrayList<String>();
        for (int pair = 1; pair <= pairs; pair++) {
            names.add(StatusFiles.Role.SIMULATOR.container(pair));
            names.add(StatusFiles.Role.AGENT.container(pair));
        }
        names.add("logcopy");
        return names;
    }
}
