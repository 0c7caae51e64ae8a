package org.carla.leaderboard.domain.record;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The GPU-hours of a run, the one calculation of them: from the moment the run's pod started running, each worker pair
 * holds its share of the node's GPUs (GPUs of the instance type / pairs) until the pair ended; pairs may end at
 * different times. Waiting for capacity (Pending) costs no GPU-hours: the pod had no node yet.
 *
 * <p>results-relay records {@link #ofRun(JobFinished, int)} at the end of each run ({@link SubmissionTable#GPU_HOURS});
 * ops-console shows {@link #soFar} for a run still going. A run whose pairs claim routes from a ledger may span several
 * pods, replaced ones included: {@link #overPods} counts each pod's whole running time on its node's GPUs.
 */
public final class GpuUsage {

    private GpuUsage() {
    }

    /**
     * GPU-hours of a run that has ended, from its {@code job-finished} event: pair i ended when the later of
     * {@code agent-i} and {@code simulator-i} last finished ({@link JobFinished.ContainerOutcome#finishedAt()}); a pair
     * with no end of its own (its containers still ran when the Job was deleted or hit its deadline) ends with the Job
     * ({@link JobFinished#finishedAt()}, else the event's time). A run whose pod never ran used none. A run of several
     * pods ({@link JobFinished#severalPods()}) counts {@link #overPods} over its pods, replaced ones included: a pod
     * holds its node's GPUs from its start until it ended, or until the Job did.
     *
     * @param gpus the GPUs of the run's instance type ({@code TrackCatalog.gpus})
     */
    public static double ofRun(JobFinished finished, int gpus) {
        Instant jobEnd = finished.finishedAt() != null ? finished.finishedAt() : finished.at();
        if (finished.severalPods()) {
            return overPods(finished.pods().stream()
                    .map(pod -> new PodTime(pod.startedAt(), pod.endedAt() != null ? pod.endedAt() : jobEnd, gpus))
                    .toList(), jobEnd);
        }
        return hours(finished.startedAt(), pairEnds(finished.containers(), finished.workerPairs(), jobEnd), gpus);
    }

    /**
     * Σ over the pairs of (pair's end − pod start) × (GPUs / pairs), in hours. An end before the start counts zero; a
     * {@code null} start (the pod never ran) gives zero.
     */
    public static double hours(Instant podStartedAt, List<Instant> pairEnds, int gpus) {
        if (gpus < 1) {
            throw new IllegalArgumentException("an instance type has at least one GPU, was " + gpus);
        }
        if (podStartedAt == null || pairEnds.isEmpty()) {
            return 0;
        }
        double share = (double) gpus / pairEnds.size();
        double hours = 0;
        for (Instant end : pairEnds) {
            hours += share * positiveHours(podStartedAt, end);
        }
        return hours;
    }

    /** A run still going: every GPU of the node since the pod started (no pair has ended as far as the record says). */
    public static double soFar(Instant podStartedAt, Instant now, int gpus) {
        if (gpus < 1) {
            throw new IllegalArgumentException("an instance type has at least one GPU, was " + gpus);
        }
        return podStartedAt == null ? 0 : gpus * positiveHours(podStartedAt, now);
    }

    /**
     * One pod of a run: when it started running, when it ended ({@code null} while it runs) and the GPUs of its node.
     * A pod that never ran ({@code running} {@code null}) used none.
     */
    public record PodTime(Instant running, Instant ended, int gpus) {

        public PodTime {
            if (gpus < 1) {
                throw new IllegalArgumentException("an instance type has at least one GPU, was " + gpus);
            }
        }
    }

    /**
     * GPU-hours of a run of one or more pods: Σ over every pod (replaced ones included, each ending when it did) of
     * (its end, or {@code now} while it runs − its start running) × its node's GPUs. What was paid for: a pod holds its
     * node's GPUs from its start to its end, an interrupted pod until it was stopped; the wait for a node is not
     * counted.
     */
    public static double overPods(List<PodTime> pods, Instant now) {
        double hours = 0;
        for (PodTime pod : pods) {
            if (pod.running() != null) {
                hours += pod.gpus() * positiveHours(pod.running(), pod.ended() != null ? pod.ended() : now);
            }
        }
        return hours;
    }

    /** Each pair's end (pairs 1..N): the later finish of its two containers, else {@code jobEnd}, never past it. */
    static List<Instant> pairEnds(List<JobFinished.ContainerOutcome> containers, int workerPairs, Instant jobEnd) {
        Map<String, JobFinished.ContainerOutcome> byName = containers.stream()
                .collect(Collectors.toMap(JobFinished.ContainerOutcome::name, c -> c, (a, b) -> b));
        var ends = new ArrayList<Instant>(workerPairs);
        for (int pair = 1; pair <= workerPairs; pair++) {
            Instant agent = finishedAt(byName.get(StatusFiles.Role.AGENT.container(pair)));
            Instant simulator = finishedAt(byName.get(StatusFiles.Role.SIMULATOR.container(pair)));
            Instant end = agent == null || simulator == null ? jobEnd : agent.isAfter(simulator) ? agent : simulator;
            ends.add(end == null || jobEnd != null && end.isAfter(jobEnd) ? jobEnd : end);
        }
        return ends;
    }

    private static Instant finishedAt(JobFinished.ContainerOutcome container) {
        return container == null ? null : container.finishedAt();
    }

    private static double positiveHours(Instant from, Instant to) {
        if (to == null || !to.isAfter(from)) {
            return 0;
        }
        return Duration.between(from, to).toMillis() / 3_600_000.0;
    }
}
