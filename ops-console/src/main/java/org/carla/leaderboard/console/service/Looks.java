package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.client.Cluster;
import org.carla.leaderboard.console.client.SubmissionTables;
import org.carla.leaderboard.console.config.ConsoleConfig;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.jboss.logging.Logger;

/**
 * Takes a {@link Look} at most once per {@code console.cache-for}, however many pages are open: each look scans every
 * leaderboard's table and lists the submissions' Jobs and pods once.
 */
@ApplicationScoped
public class Looks {

    static final String CLUSTER = "Kubernetes API";
    private static final Logger LOG = Logger.getLogger(Looks.class);

    private final TrackCatalog catalog;
    private final SubmissionTables tables;
    private final Cluster cluster;
    private final ConsoleConfig config;
    private Look last;

    Looks(TrackCatalog catalog, SubmissionTables tables, Cluster cluster, ConsoleConfig config) {
        this.catalog = catalog;
        this.tables = tables;
        this.cluster = cluster;
        this.config = config;
    }

    public synchronized Look current() {
        Instant now = Instant.now();
        if (last == null || !now.isBefore(last.at().plus(config.cacheFor()))) {
            last = take(now);
        }
        return last;
    }

    /** A fresh look, after an action changed something. */
    public synchronized Look refreshed() {
        last = take(Instant.now());
        return last;
    }

    private Look take(Instant now) {
        var records = new ArrayList<SubmissionRecord>();
        var truncated = new ArrayList<String>();
        var problems = new ArrayList<String>();
        Instant since = now.minus(config.window());
        catalog.leaderboards().forEach((leaderboard, settings) -> {
            try {
                var page = tables.recent(leaderboard, settings.submissionsTable(), since, config.scanLimit());
                records.addAll(page.records());
                if (page.truncated()) {
                    truncated.add(leaderboard);
                }
            } catch (RuntimeException e) {
                problems.add("DynamoDB table " + settings.submissionsTable() + ": " + e.getMessage());
                LOG.warnf("cannot read table %s: %s", settings.submissionsTable(), e.getMessage());
            }
        });
        List<Cluster.JobView> jobs = List.of();
        List<Cluster.PodView> pods = List.of();
        try {
            jobs = cluster.jobs();
            pods = cluster.pods();
        } catch (RuntimeException e) {
            problems.add(CLUSTER + ": " + e.getMessage());
            LOG.warnf("cannot read the submissions' Jobs and pods: %s", e.getMessage());
        }
        records.sort((a, b) -> compare(b.runSince(), a.runSince()));
        return new Look(now, records, truncated, jobs, pods, problems);
    }

    private static int compare(Instant a, Instant b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return a.compareTo(b);
    }
}
