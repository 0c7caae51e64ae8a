package org.carla.leaderboard.localstack.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.localstack.evalai.NewSubmission;
import org.carla.leaderboard.localstack.standin.SubmissionKnobs;

/**
 * Sample submissions through the real path: created on the EvalAI stand-in (which announces them on
 * {@code submissions} as EvalAI does), then watched on EvalAI until each shows a final status, playing the host's
 * part of each scenario on the way.
 */
public final class LocalRun {

    /** Two tracks of two leaderboards: Leaderboard 2.0's SENSORS qualifier and Leaderboard 1.0's MAP track. */
    public static final List<Long> PHASES = List.of(2075L, 1188L);
    static final Duration POLL = Duration.ofMillis(500);
    static final String NAMESPACE = "submissions";
    /** Kubernetes' default {@code terminationGracePeriodSeconds}. */
    private static final long DEFAULT_GRACE_SECONDS = 30;
    private static final Logger LOG = Logger.getLogger(LocalRun.class.getName());

    private final LocalSystem system;
    private final TrackCatalog catalog;
    private final List<SubmissionRun> runs = new ArrayList<>();
    private final NodeGroup nodeGroup;
    /** Submissions still to be made, each at its moment ({@link #schedule}). */
    private final Deque<Scheduled> scheduled = new ArrayDeque<>();

    private record Scheduled(Scenario scenario, Instant at) {
    }

    public LocalRun(LocalSystem system) {
        this.system = system;
        this.catalog = new TrackCatalog(system.stack().evaluation());
        this.nodeGroup = new NodeGroup(system.stack().jobRunner());
    }

    /**
     * Creates one submission per scenario on EvalAI, alternating between the two tracks (CAPACITY on its own phase);
     * returns them in the plan's order. Scenarios that wait for GPU capacity are created last: once the pods of the
     * others are placed (bounded), the node group is held full and they are made ({@link NodeGroup}).
     */
    public List<SubmissionRun> submit(List<Scenario> plan) {
        var created = new SubmissionRun[plan.size()];
        for (int i = 0; i < plan.size(); i++) {
            if (!plan.get(i).waitsForCapacity()) {
                created[i] = create(plan.get(i));
            }
        }
        if (plan.stream().anyMatch(Scenario::waitsForCapacity)) {
            awaitPlaced(List.copyOf(runs));
            nodeGroup.hold();
            for (int i = 0; i < plan.size(); i++) {
                if (plan.get(i).waitsForCapacity()) {
                    created[i] = create(plan.get(i));
                }
            }
        }
        return List.of(created);
    }

    private SubmissionRun create(Scenario scenario) {
        int index = runs.size() + 1;
        long phase = scenario.phase(index, PHASES);
        TrackSpec track = catalog.forPhase(phase).orElseThrow();
        var view = system.stack().evalAi().createSubmission(NewSubmission.of(1000 + index, scenario.teamName(index),
                phase, scenario.image(index)));
        var run = new SubmissionRun(view, scenario, track);
        writeKnobs(run);
        runs.add(run);
        return run;
    }

    /** Waits (bounded) until every submission made so far has a pod on a node, or has ended. */
    private void awaitPlaced(List<SubmissionRun> made) {
        Instant deadline = Instant.now().plus(NodeGroup.PLACEMENT_WAIT);
        try {
            while (Instant.now().isBefore(deadline)) {
                var pods = pods();
                if (made.stream().allMatch(run -> pods.placed(run.submissionId()) || run.ended())) {
                    return;
                }
                made.forEach(run -> run.observe(system.stack().evalAi(), evalAiQueueUp()));
                Thread.sleep(POLL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private SubmissionPods pods() {
        return SubmissionPods.of(system.stack().kubernetes(), NAMESPACE);
    }

    /** The track deadline of a submission, in seconds. */
    long deadlineSeconds(SubmissionRun run) {
        return catalog.forPhase(run.view().phasePk()).map(TrackSpec::deadlineSeconds).orElse(0L);
    }

    /**
     * Plans the submissions to be made one by one, evenly over {@code over} from now, as EvalAI's come in; {@link #await}
     * makes each at its moment and waits for all of them.
     */
    public void schedule(List<Scenario> plan, Duration over) {
        Instant now = Instant.now();
        for (int i = 0; i < plan.size(); i++) {
            scheduled.add(new Scheduled(plan.get(i), now.plus(over.multipliedBy(i).dividedBy(plan.size()))));
        }
    }

    /**
     * Makes the submissions whose moment came. EvalAI announces a submission on its queue, which here is ElasticMQ
     * too: while the chaos has it down, the participant waits (EvalAI's own queue is not what the chaos tests).
     */
    private void submitDue() {
        while (!scheduled.isEmpty() && !scheduled.peekFirst().at().isAfter(Instant.now()) && evalAiQueueUp()) {
            try {
                submit(List.of(scheduled.peekFirst().scenario()));
                scheduled.removeFirst();
            } catch (RuntimeException e) {
                // The stand-in forgets a submission it could not announce: made again at the next look.
                LOG.log(Level.INFO, "submission not made yet: " + e.getMessage());
                return;
            }
        }
    }

    /** Whether EvalAI can announce on its queue (ElasticMQ up and answering). */
    private boolean evalAiQueueUp() {
        return system.stack().server("sqs").isUp();
    }

    private void writeKnobs(SubmissionRun run) {
        Scenario scenario = run.scenario();
        String submissionId = run.submissionId();
        var knobs = scenario.knobs(system.config().knobsDir(), submissionId, system.config(), run.routeIds(),
                system.stack().evalAi().controlUrl() + "/submissions/" + submissionId);
        if (knobs.isEmpty()) {
            return;
        }
        var properties = new Properties();
        properties.putAll(knobs);
        var file = SubmissionKnobs.file(system.config().knobsDir(), submissionId);
        try (Writer out = Files.newBufferedWriter(file)) {
            properties.store(out, "stand-in knobs of submission " + submissionId + ", scenario " + scenario.label());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /**
     * Makes the scheduled submissions at their moments and watches every submission until each has ended or the
     * timeout passed, showing progress on the board; {@code tick}
     * runs after every look (tests act on the system mid-run there). Returns whether every submission ended.
     */
    public boolean await(Duration timeout, ProgressBoard board, Consumer<List<SubmissionRun>> tick)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            submitDue();
            SubmissionPods pods = nodeGroup.held() ? pods() : null;
            for (SubmissionRun run : runs) {
                if (!run.ended()) {
                    try {
                        run.observe(system.stack().evalAi(), evalAiQueueUp());
                        if (run.losesItsNodeNow()) {
                            loseNode(run);
                        }
                        if (run.awaitsItsInterruption() && routeFiledWhileAnotherDrives(run)) {
                            interrupt(run);
                        }
                        if (pods != null && pods.waitsForCapacity(run.submissionId())) {
                            run.podWaits(system.stack().evalAi());
                        }
                    } catch (RuntimeException e) {
                        LOG.log(Level.INFO, "submission " + run.submissionId() + " not looked at: " + e.getMessage());
                    }
                }
                board.show(run.submissionId(), run.progressLine());
            }
            if (pods != null) {
                nodeGroup.look(runs, pods, this::deadlineSeconds);
            }
            tick.accept(List.copyOf(runs));
            if (scheduled.isEmpty() && runs.stream().allMatch(SubmissionRun::ended)) {
                return true;
            }
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The cluster's part in NODE_LOST: the node of the submission's running pod goes (the Job runner's knob). */
    private void loseNode(SubmissionRun run) {
        var runner = system.stack().jobRunner();
        pods().of(run.submissionId()).stream().filter(pod -> pod.placedAt().isPresent()).findFirst()
                .filter(pod -> pod.completionIndex().isPresent()
                        ? runner.loseNode(pod.job(), pod.completionIndex().getAsInt()) : runner.loseNode(pod.job()))
                .ifPresent(pod -> {
                    LOG.info("submission " + run.submissionId() + ": the node of pod " + pod.name() + " is lost");
                    run.nodeLost();
                });
    }

    /** SPOT's moment: a route of its run is filed (DONE) while another is claimed (in flight). */
    private boolean routeFiledWhileAnotherDrives(SubmissionRun run) {
        var states = run.ledger(system.stack().dynamoDb()).stream().map(LedgerEntry::state).toList();
        return states.contains(EntryState.DONE) && states.contains(EntryState.CLAIMED);
    }

    /**
     * The cluster's part in SPOT: the node of the submission's running pod shuts down, and the kubelet gives the pod
     * its grace period (its Job's {@code terminationGracePeriodSeconds}, Kubernetes' 30 s when unset). The kubelet's
     * part runs beside the run's loop, which goes on looking at the other submissions meanwhile.
     */
    private void interrupt(SubmissionRun run) {
        pods().of(run.submissionId()).stream().filter(pod -> pod.placedAt().isPresent()).findFirst().ifPresent(pod -> {
            var job = system.stack().kubernetes().batch().v1().jobs().inNamespace(NAMESPACE).withName(pod.job()).get();
            Long seconds = job == null ? null : job.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
            Duration grace = Duration.ofSeconds(seconds == null ? DEFAULT_GRACE_SECONDS : seconds);
            run.interrupted(Instant.now());
            var runner = system.stack().jobRunner();
            CompletableFuture.runAsync(() -> {
                // An Indexed Job's pod by its completion index: the Job has one pod per index.
                boolean done = pod.completionIndex().isPresent()
                        ? runner.interrupt(pod.job(), pod.completionIndex().getAsInt(), grace)
                        : runner.interrupt(pod.job(), grace);
                LOG.info("submission " + run.submissionId() + ": the node of pod " + pod.name() + " shuts down (spot),"
                        + " grace " + grace + ": " + (done ? "done" : "the pod had no node"));
            });
        });
    }

    /** Waits (bounded) until job-launcher has removed every Job: it does so once it reported the Job's end. */
    public boolean awaitNoJobs(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!system.stack().kubernetes().batch().v1().jobs().inNamespace(NAMESPACE).list().getItems().isEmpty()) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(POLL.toMillis());
        }
        return true;
    }

    public List<SubmissionRun> runs() {
        return List.copyOf(runs);
    }

    /** The table at the end: one row per submission, then where its files are. */
    public String table() {
        var out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-10s %-18s %-10s %-9s %-13s %-16s %s%n", "submission", "track",
                "EvalAI", "expected", "driving score", "route completion", "results"));
        for (SubmissionRun run : runs) {
            out.append(String.format(Locale.ROOT, "%-10s %-18s %-10s %-9s %-13s %-16s %s%n", run.submissionId(),
                    run.track(), run.finalStatus(), run.asExpected() ? "yes" : "NO (" + run.scenario().expectedStatus()
                            + ")", run.drivingScore().map(LocalRun::number).orElse("-"),
                    run.routeCompletion().map(LocalRun::number).orElse("-"), run.s3Prefix()));
            out.append(String.format(Locale.ROOT, "%-10s %s%n", "", "local copy: "
                    + system.stack().workDir().resolve("s3/buckets").resolve(run.bucket()).resolve(run.submissionId())));
        }
        return out.toString();
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
