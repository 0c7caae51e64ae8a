package org.carla.leaderboard.console.service;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.client.Cluster.JobView;
import org.carla.leaderboard.console.client.Cluster.PodView;
import org.carla.leaderboard.domain.record.GpuUsage;
import org.carla.leaderboard.domain.record.StuckConfig;
import org.carla.leaderboard.domain.record.StuckRules;
import org.carla.leaderboard.domain.track.TrackCatalog;

/** The list of recent submissions, from one {@link Look}, filtered as the operator asks. */
@ApplicationScoped
public class SubmissionOverview {

    private final TrackCatalog catalog;
    private final StuckConfig stuck;

    SubmissionOverview(TrackCatalog catalog, StuckConfig stuck) {
        this.catalog = catalog;
        this.stuck = stuck;
    }

    /** What to show: each filter is ignored when blank; the team matches its id or a part of its name. */
    public record Filter(String status, String track, String team) {

        boolean accepts(SubmissionRow row) {
            return (blank(status) || status.equalsIgnoreCase(row.status()))
                    && (blank(track) || track.equalsIgnoreCase(row.track()))
                    && (blank(team) || team.equals(row.teamId()) || row.teamName() != null
                            && row.teamName().toLowerCase(Locale.ROOT).contains(team.toLowerCase(Locale.ROOT)));
        }

        private static boolean blank(String value) {
            return value == null || value.isBlank();
        }
    }

    public List<SubmissionRow> rows(Look look, Filter filter) {
        return look.records().stream().map(record -> row(look, record)).filter(filter::accepts).toList();
    }

    SubmissionRow row(Look look, SubmissionRecord record) {
        Instant now = look.at();
        Optional<JobView> job = look.job(record);
        Optional<PodView> pod = job.flatMap(look::pod);
        var finding = stuck(look, record, job);
        return new SubmissionRow(record.leaderboard(), record.teamId(), record.teamName(), record.submissionId(),
                record.track(), record.run(), record.status() != null ? record.status().name() : record.statusText(),
                record.routesDone(), record.routesTotal(), record.drivingScore(),
                seconds(record.waitingForCapacity(now)), seconds(record.running(now)),
                gpuHours(record, now, job.map(look::allPods).orElse(List.of())),
                job.map(JobView::name).orElse(record.jobName()),
                job.map(j -> j.active() ? "active" : j.condition()).orElse(null),
                pod.map(PodView::phase).orElse(null), record.lastProgressTime(), record.submittedTime(),
                record.endTime(), finding.map(f -> f.rule().label()).orElse(null),
                finding.map(f -> f.rule().description() + " for " + minutes(f.stuckFor()) + " (mend: "
                        + f.mend() + ")").orElse(null),
                record.failureReason());
    }

    /**
     * Recorded GPU-hours of the ended runs, plus the current run's while its pod runs; in a run of several pods, every
     * pod the cluster shows of its Job, each from its start to its end or now ({@link GpuUsage#overPods}).
     */
    Double gpuHours(SubmissionRecord record, Instant now, List<PodView> pods) {
        double recorded = record.gpuHours() == null ? 0 : record.gpuHours();
        if (record.terminal() || record.runStart() == null) {
            return record.gpuHours();
        }
        var gpus = catalog.gpus(record.instanceType());
        if (gpus.isEmpty()) {
            return record.gpuHours();
        }
        if (record.pods() > 1 && !pods.isEmpty()) {
            return recorded + GpuUsage.overPods(pods.stream()
                    .map(pod -> new GpuUsage.PodTime(pod.startedAt(), pod.endedAt(), gpus.getAsInt())).toList(), now);
        }
        return recorded + GpuUsage.soFar(record.runStart(), now, gpus.getAsInt());
    }

    Optional<StuckRules.Finding> stuck(Look look, SubmissionRecord record, Optional<JobView> job) {
        StuckRules.Job observed = null;
        if (look.clusterRead()) {
            observed = job.map(j -> j.active() ? StuckRules.Job.active() : StuckRules.Job.ended(j.endedAt()))
                    .orElse(StuckRules.Job.absent());
        }
        Instant activity = record.lastProgressTime() != null ? record.lastProgressTime() : record.runStart();
        return StuckRules.check(new StuckRules.Observed(record.status(), record.run(), record.launchedRun(),
                record.jobEndedRun(), record.statusSince(), activity, record.finalSent(), record.endTime(), observed),
                look.at(), stuck.bounds());
    }

    private static Long seconds(Duration duration) {
        return duration == null ? null : duration.toSeconds();
    }

    private static String minutes(Duration duration) {
        long minutes = duration.toMinutes();
        return minutes < 120 ? minutes + " min" : (minutes / 60) + " h " + (minutes % 60) + " min";
    }
}
