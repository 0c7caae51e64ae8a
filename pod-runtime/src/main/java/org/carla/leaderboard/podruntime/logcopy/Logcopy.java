package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.carla.leaderboard.podruntime.results.ResultsRefresh;
import org.carla.leaderboard.podruntime.results.ResultsRefresh.AgentFile;
import org.jboss.logging.Logger;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The logcopy role: every period, merge the agents' results and write EvalAI's files, upload what is due of the logs
 * volume ({@link LogsUpload}), look for the cancel object, report progress when there is news or a heartbeat is due;
 * the first pass runs at once, and each {@link Ending} makes a last upload and report. S3 and SQS outages are retried
 * with back-off and nothing is lost: a file or report that did not go out goes out later.
 */
public final class Logcopy {

    private static final Logger LOG = Logger.getLogger(Logcopy.class);
    private static final Logger OPERATOR = Logger.getLogger(LogcopyLogFile.OPERATOR);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(60);
    /** After a stop request: the last uploads until then, the last report until {@link #STOP_REPORT}. */
    static final Duration STOP_UPLOADS = Duration.ofSeconds(14);
    static final Duration STOP_REPORT = Duration.ofSeconds(18);
    private static final Duration STOP_RETRY = Duration.ofMillis(500);
    /** Tries of the upload after the last report: one failure, the upload after it, and the one that says so. */
    private static final int LAST_UPLOAD_TRIES = 4;
    private static final String DONE = LogsLayout.statusFile(StatusFiles.LOGCOPY_DONE);
    private static final String CANCEL = LogsLayout.statusFile(StatusFiles.SIMULATION_CANCEL);
    /** The logs volume's paths logcopy writes: S3 gets them from logcopy's memory, never from the volume. */
    static final Set<String> OWN_FILES = own();

    public enum Ending {
        /** Every worker pair is done; {@code logcopy.done} is uploaded. */
        FINISHED,
        /** The cancel object was found; {@code simulation.cancel} is uploaded. */
        CANCELLED,
        /** A {@code simulation.cancel} logcopy did not write made the pairs stop; no {@code logcopy.done}. */
        UNREQUESTED_CANCEL,
        /** Asked to stop (SIGTERM) first: the last upload and report are retried within the grace. */
        STOPPED,
        /** The pair containers restarted {@code RESTART_LIMIT} times (their start files); no {@code logcopy.done}. */
        RESTART_LIMIT
    }

    private final LogcopySettings settings;
    private final GuardedOpen guard = new GuardedOpen();
    private final VolumeFiles volume;
    private final LogsUpload uploads;
    private final CancelControl cancelControl;
    private final ProgressReport report;
    private final ResultsRefresh results;
    private final StatusWatch watch;
    private final RequestMeter meter;
    private final Outage s3Outage;
    private final Outage sqsOutage;
    private final Outage ledgerOutage;
    /** The pairs' claims of the route ledger; empty for a run without one (each pair drives its static share). */
    private final Optional<PairClaims> claims;
    private final Map<String, byte[]> own = new LinkedHashMap<>();
    private final Set<String> volumeProblems = new HashSet<>();
    private final Map<String, Checkpoint> checkpoints = new HashMap<>();
    /** The agents' checkpoints: the merged results are made of them. */
    private final Set<String> checkpointFiles;
    private LogcopyLogFile log;
    private long logVersion = -1;
    private MergeResult lastResult;
    private String lastSummary = "";
    private boolean wroteCancel;

    /** The route ledger of a run that has one: the store and this pod's place in the run. */
    public record Ledger(RouteLedger ledger, String pod, int index, PairPlacement placement, String trackPartition) {
    }

    public Logcopy(LogcopySettings settings, S3Client s3, SqsClient sqs, RequestMeter meter, Clock clock) {
        this(settings, s3, sqs, Optional.empty(), meter, clock);
    }

    public Logcopy(LogcopySettings settings, S3Client s3, SqsClient sqs, Optional<Ledger> ledger, RequestMeter meter,
            Clock clock) {
        this.settings = settings;
        this.meter = meter;
        this.volume = new VolumeFiles(settings.logsDir(), guard);
        this.checkpointFiles = checkpointFiles(settings.workerPairs());
        this.uploads = new LogsUpload(volume, new SubmissionObjects(s3, settings.bucket(), settings.prefix(), meter,
                settings.partSize()), settings.prefix(), meter, new UploadBudget(), OWN_FILES::contains,
                checkpointFiles::contains, settings.uploadInterval(), clock);
        this.cancelControl = new CancelControl(s3, settings.bucket(), settings.submissionPrefix(), meter);
        this.report = new ProgressReport(sqs, settings.queueUrl(), settings.submission(), settings.run(),
                settings.heartbeat(), meter, clock);
        this.results = new ResultsRefresh(settings.workerPairs(), settings.expectedRoutes());
        this.watch = new StatusWatch(settings.statusDir(), settings.workerPairs(), settings.restartLimit());
        this.s3Outage = new Outage("S3", clock);
        this.sqsOutage = new Outage("SQS", clock);
        this.ledgerOutage = new Outage("DynamoDB", clock);
        this.claims = ledger.map(l -> new PairClaims(l.ledger(), volume, settings.statusDir(), l.pod(), l.index(),
                settings.workerPairs(), l.placement(), l.trackPartition(), clock));
    }

    /** Ends the loop soon (at the next wait), after a last upload and report. Safe from any thread. */
    public void requestStop() {
        watch.requestStop();
    }

    public Ending run() throws InterruptedException {
        log = LogcopyLogFile.attach(earlierLog());
        try {
            OPERATOR.infof("logcopy: s3://%s/%s, progress to %s", settings.bucket(), settings.prefix(),
                    settings.queueUrl());
            LOG.infof("logcopy: submission %s run %d, %d worker pairs, %s routes expected, every %s",
                    settings.submissionId(), settings.run(), settings.workerPairs(),
                    settings.expectedRoutes().isPresent() ? settings.expectedRoutes().getAsInt() : "unknown",
                    settings.period());
            Integer remote = s3(uploads::seedFromRemote);
            if (remote != null && remote > 0) {
                LOG.infof("logcopy: %d files of an earlier run are in S3 already and are not uploaded again", remote);
            }
            return loop();
        } finally {
            log.close();
            guard.close();
        }
    }

    private Ending loop() throws InterruptedException {
        while (true) {
            if (watch.stopRequested()) {
                return end(Ending.STOPPED);
            }
            claims.ifPresent(this::claimsPass);
            boolean workersDone = watch.allWorkersDone();
            boolean cancelFile = watch.cancelPresent();
            boolean restartLimit = watch.restartLimitReached();
            MergeResult result = refreshResults();
            boolean uploaded = upload(false, Deadline.afterStop(watch, STOP_UPLOADS));
            if (uploaded && Boolean.TRUE.equals(s3(cancelControl::requested))) {
                LOG.info("logcopy: the cancel control object is there: the submission was cancelled; stopping every"
                        + " container");
                writeStatus(CANCEL);
                wroteCancel = true;
                return end(Ending.CANCELLED);
            }
            if (cancelFile && !wroteCancel) {
                LOG.warnf("logcopy: %s appeared, but logcopy did not write it and no cancel was requested: the worker"
                        + " pairs stop on it, so this is the last upload; the run does not finish", CANCEL);
                return end(Ending.UNREQUESTED_CANCEL);
            }
            boolean reported = uploaded && sqs(() -> report.sendIfDue(result, results.resultsDigest())) != null;
            if (workersDone && uploaded && reported) {
                LOG.infof("logcopy: every worker pair is done; last results: %d of %d routes, global results: %s",
                        result.routesDone(), result.routesTotal(), result.globalResults() ? "yes" : "no");
                return end(Ending.FINISHED);
            }
            // The run's own ends come first: pairs that are all done restart no more, and a cancel stops them anyway.
            if (restartLimit && !workersDone) {
                logRestarts();
                return end(Ending.RESTART_LIMIT);
            }
            boolean retrying = s3Outage.ongoing() || sqsOutage.ongoing() || ledgerOutage.ongoing();
            watch.await(retrying ? backOff() : settings.period(),
                    () -> !workersDone && watch.allWorkersDone() || !cancelFile && watch.cancelPresent()
                            || !restartLimit && watch.restartLimitReached()
                            || claims.isPresent() && claims.get().due());
        }
    }

    /**
     * The last upload and report. Every change is uploaded whatever the interval and the budget, retried with back-off
     * until it succeeds, or, once a stop is requested, until {@link #STOP_UPLOADS} after it; then, when finished,
     * {@code logcopy.done} (it tells the relay that everything before it is in S3); then the last report, naming what
     * could not be uploaded.
     */
    private Ending end(Ending ending) throws InterruptedException {
        if ((ending == Ending.STOPPED || ending == Ending.RESTART_LIMIT) && claims.isPresent()) {
            // The pod is going away (a node drained, a spot interruption, the crash budget spent): the routes in flight
            // go back at once.
            String reason = ending == Ending.STOPPED ? "logcopy was stopped (SIGTERM): the pod is going away"
                    : "the pod's pair containers restarted as often as RESTART_LIMIT allows: the pod is ending";
            ledger(() -> {
                claims.get().releaseAll(reason);
                return Boolean.TRUE;
            });
        }
        MergeResult result = refreshResults();
        boolean flushed = untilDone(() -> upload(true, Deadline.afterStop(watch, STOP_UPLOADS)) ? Boolean.TRUE : null,
                STOP_UPLOADS);
        if (flushed && ending == Ending.FINISHED) {
            writeStatus(DONE);
            flushed = untilDone(() -> upload(true, Deadline.afterStop(watch, STOP_UPLOADS)) ? Boolean.TRUE : null,
                    STOP_UPLOADS);
        }
        Ending ended = ending == Ending.FINISHED && !flushed ? Ending.STOPPED : ending;
        List<String> notUploaded = notUploaded(flushed);
        if (!notUploaded.isEmpty()) {
            LOG.warnf("logcopy: not uploaded: %s", String.join(", ", notUploaded));
        }
        boolean reported = untilDone(() -> sqs(() -> report.sendLast(result, results.resultsDigest(),
                Progress.Ending.valueOf(ended.name()), notUploaded)), STOP_REPORT);
        LOG.infof("logcopy: %s%s; %s", switch (ended) {
            case FINISHED -> "finished";
            case CANCELLED -> "cancelled";
            case UNREQUESTED_CANCEL -> "ended on a cancel nobody requested";
            case STOPPED -> "stopped before the end";
            case RESTART_LIMIT -> "ended the pod: its pair containers restarted as often as RESTART_LIMIT allows";
        }, reported ? "" : " (the last progress report could not be sent)", meter);
        uploadLastLines();
        refreshLog();
        return ended;
    }

    /**
     * Says which pair containers restarted how often: the console and {@code logcopy/logcopy.log}, which a failed run
     * shows the participant, both carry it (container names and counts only).
     */
    private void logRestarts() {
        List<String> starts = watch.startFiles();
        var restarted = new ArrayList<String>();
        for (int pair = 1; pair <= settings.workerPairs(); pair++) {
            for (StatusFiles.Role role : StatusFiles.Role.values()) {
                int restarts = StatusFiles.startCount(starts, role, pair) - 1;
                if (restarts > 0) {
                    restarted.add(role.container(pair) + " " + restarts + (restarts == 1 ? " time" : " times"));
                }
            }
        }
        LOG.warnf("logcopy: the pair containers restarted %d times (%s), RESTART_LIMIT is %d: this is the last upload,"
                + " then the pod ends and the run fails", StatusFiles.restarts(starts, settings.workerPairs()),
                String.join(", ", restarted), settings.restartLimit());
    }

    /**
     * The lines logged since the last upload go to S3 too when there is still time (best effort: the report is out
     * already), with a few tries: a connection an outage broke can fail the first request after it, and the try that
     * succeeds after a failure logs "available again", which one more upload carries.
     */
    private void uploadLastLines() throws InterruptedException {
        boolean failedBefore = false;
        for (int tries = 0; tries < LAST_UPLOAD_TRIES; tries++) {
            Deadline deadline = Deadline.afterStop(watch, STOP_REPORT);
            if (deadline.passed()) {
                return;
            }
            boolean uploaded = upload(true, deadline);
            if (uploaded && !failedBefore) {
                return;
            }
            failedBefore = !uploaded;
            if (!uploaded) {
                Thread.sleep(deadline.cap(STOP_RETRY).toMillis()); // the retry pace, within the stop's deadline
            }
        }
    }

    /**
     * What the last report names: files skipped or left behind, logcopy's own included; its log only when the last
     * upload failed (it always has a line or two more, which the upload after the report carries).
     */
    private List<String> notUploaded(boolean flushed) {
        refreshLog();
        var files = new LinkedHashMap<>(own);
        if (flushed) {
            files.remove(LogsLayout.LOGCOPY_LOG);
        }
        return uploads.notUploaded(files);
    }

    /**
     * Uploads the volume's files, then logcopy's own; false when S3 failed (the outage is noted), the stop's deadline
     * cut the pass short, or a checkpoint is not in S3 as seen.
     */
    private boolean upload(boolean flush, Deadline deadline) {
        refreshLog();
        return Boolean.TRUE.equals(s3(() -> {
            // The volume first: a failure leaves logcopy's files, which the last report names, pending.
            boolean complete = uploads.uploadChanged(flush, deadline).complete();
            refreshLog(); // with what the pass logged, so that the last pass leaves nothing behind
            // The merged results never get ahead of the checkpoints in S3: a pod that resumes the run downloads those.
            boolean checkpointsInS3 = checkpointFiles.stream().noneMatch(uploads::pending);
            var files = checkpointsInS3 ? own : withoutResults(own);
            return complete & checkpointsInS3 & uploads.uploadOwn(files, deadline).complete();
        }));
    }

    private static Map<String, byte[]> withoutResults(Map<String, byte[]> files) {
        var kept = new LinkedHashMap<>(files);
        kept.keySet().removeAll(ResultsRefresh.FILES);
        return kept;
    }

    private static Set<String> checkpointFiles(int workerPairs) {
        var files = new HashSet<String>();
        for (int pair = 1; pair <= workerPairs; pair++) {
            files.add(LogsLayout.agentCheckpoint(pair));
        }
        return Set.copyOf(files);
    }

    /**
     * Retries until the attempt gives a value; once a stop is requested, only until {@code afterStop} after it.
     * Returns whether it succeeded.
     */
    private boolean untilDone(Callable<Object> attempt, Duration afterStop) throws InterruptedException {
        while (true) {
            try {
                if (attempt.call() != null) {
                    return true;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Deadline deadline = Deadline.afterStop(watch, afterStop);
            if (deadline.passed()) {
                return false;
            }
            if (watch.stopRequested()) {
                Thread.sleep(deadline.cap(STOP_RETRY).toMillis()); // the stop is known: only the retry pace is left
            } else {
                watch.await(backOff(), () -> false);
            }
        }
    }

    /** Reads the agents' checkpoints, merges, and writes the files that changed into the volume. */
    private MergeResult refreshResults() {
        try {
            if (claims.isPresent()) {
                Optional<MergeResult> merged = claims.get().merged();
                if (merged.isEmpty()) {
                    return lastResult != null ? lastResult : CheckpointMerge.merge(List.of(), settings.expectedRoutes());
                }
                return refreshed(results.refreshMerged(merged.get()));
            }
            var agents = new ArrayList<AgentFile>();
            for (int pair = 1; pair <= settings.workerPairs(); pair++) {
                agents.add(readCheckpoint(LogsLayout.agentCheckpoint(pair)));
            }
            return refreshed(results.refresh(agents));
        } catch (RuntimeException e) {
            LOG.errorf("logcopy: cannot merge the results: %s", e.getClass().getSimpleName());
            OPERATOR.errorf(e, "logcopy: cannot merge the results");
            return lastResult != null ? lastResult : CheckpointMerge.merge(List.of(), settings.expectedRoutes());
        }
    }

    /** Writes the files of a refresh that changed into the volume, and keeps them to upload from memory. */
    private MergeResult refreshed(ResultsRefresh.Refreshed refreshed) {
        for (String path : refreshed.changed()) {
            byte[] content = refreshed.files().get(path).getBytes(StandardCharsets.UTF_8);
            own.put(path, content);
            writeToVolume(path, content, false);
        }
        lastResult = refreshed.result();
        logChange(refreshed.result());
        return refreshed.result();
    }

    /**
     * One pass of the pairs' claims. A DynamoDB failure is an outage, retried at the next pass; a ledger that breaks its
     * own rules (an item that is not one, races lost without end) is logged and retried too: logcopy keeps uploading.
     */
    private void claimsPass(PairClaims pairs) {
        ledger(() -> {
            pairs.pass();
            return Boolean.TRUE;
        });
    }

    private <T> T ledger(Outage.Attempt<T> call) {
        try {
            return ledgerOutage.call(call);
        } catch (IllegalStateException | IllegalArgumentException e) {
            LOG.errorf("logcopy: the route ledger: %s", e.getMessage());
            return null;
        }
    }

    /** An agent's checkpoint, read again only when its size, time or identity changed. */
    private AgentFile readCheckpoint(String relative) {
        AgentFile agent;
        try {
            Optional<BasicFileAttributes> attributes = volume.attributes(relative);
            if (attributes.isEmpty()) {
                checkpoints.remove(relative);
                return AgentFile.missing();
            }
            BasicFileAttributes found = attributes.get();
            List<Object> stamp = List.of(found.size(), found.lastModifiedTime(), String.valueOf(found.fileKey()));
            Checkpoint last = checkpoints.get(relative);
            if (last != null && last.stamp().equals(stamp)) {
                return last.agent();
            }
            agent = AgentFile.of(new String(volume.read(relative, ResultsRefresh.CHECKPOINT_MAX_BYTES),
                    StandardCharsets.UTF_8));
            checkpoints.put(relative, new Checkpoint(stamp, agent));
        } catch (NoSuchFileException e) {
            checkpoints.remove(relative);
            return AgentFile.missing();
        } catch (IOException e) {
            checkpoints.remove(relative);
            return AgentFile.unusable(e.getMessage());
        }
        return agent;
    }

    /** An agent's checkpoint as read last, and the stamp of the file it was read from. */
    private record Checkpoint(List<Object> stamp, AgentFile agent) {
    }

    /** One line when the results change, not one per period (the log is uploaded too). */
    private void logChange(MergeResult result) {
        String summary = result.routesDone() + " of " + result.routesTotal() + " routes, global results: "
                + (result.globalResults() ? "yes, entry " + result.merged().entryStatus() : "no")
                + (result.refused() ? "; refused: " + String.join("; ", result.problems()) : "")
                + (result.skippedInputs().isEmpty() ? "" : "; no data from " + String.join("; ",
                        result.skippedInputs()));
        if (!Objects.equals(summary, lastSummary)) {
            lastSummary = summary;
            if (result.refused() || result.skippedInputs().stream().anyMatch(skipped -> !skipped.endsWith(": missing"))) {
                LOG.warnf("logcopy: results: %s", summary);
            } else {
                LOG.infof("logcopy: results: %s", summary);
            }
            result.invalidReason().ifPresent(reason -> LOG.warnf("logcopy: the entry is Invalid: %s", reason));
        }
    }

    /** A status file logcopy writes: into the volume (the other containers react to it) and into S3 from memory. */
    private void writeStatus(String relative) {
        own.put(relative, new byte[0]);
        writeToVolume(relative, new byte[0], true);
    }

    /** Logs a problem with the volume once per kind: the S3 copy goes from memory whatever happens here. */
    private void writeToVolume(String relative, byte[] content, boolean openToAll) {
        try {
            Optional<String> repaired = volume.replace(relative, content, openToAll);
            repaired.ifPresent(what -> {
                if (volumeProblems.size() < 100 && volumeProblems.add(what)) {
                    LOG.warnf("logcopy: %s", what);
                }
            });
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            // Once per file and kind of failure: a message can hold a random temporary name.
            if (volumeProblems.add(relative + " " + e.getClass().getName())) {
                LOG.warnf("logcopy: cannot write %s in the logs volume (%s); it is uploaded from memory all the same",
                        relative, RouteRecordCheck.printable(e.getMessage()));
            }
        }
    }

    /** logcopy's log as it is now, into the own files and the volume when it changed. */
    private void refreshLog() {
        if (log == null || log.version() == logVersion) {
            return;
        }
        logVersion = log.version();
        byte[] content = log.bytes();
        own.put(LogsLayout.LOGCOPY_LOG, content);
        writeToVolume(LogsLayout.LOGCOPY_LOG, content, false);
    }

    /** What an earlier logcopy of this submission logged (a restart, or init's download on a resume). */
    private String earlierLog() {
        try {
            return new String(volume.read(LogsLayout.LOGCOPY_LOG, LogcopyLogFile.MAX_CHARS), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private Duration backOff() {
        int failures = Math.max(1, Math.max(s3Outage.failures(), sqsOutage.failures()));
        Duration first = settings.period().compareTo(FIRST_RETRY) < 0 ? settings.period() : FIRST_RETRY;
        Duration longest = settings.period().compareTo(LONGEST_RETRY) > 0 ? settings.period() : LONGEST_RETRY;
        Duration delay = first.multipliedBy(1L << Math.min(failures - 1, 16));
        return delay.compareTo(longest) > 0 ? longest : delay;
    }

    /** The S3 call's result, or null when S3 failed (the outage is noted). */
    private <T> T s3(Outage.Attempt<T> call) {
        return s3Outage.call(call);
    }

    private <T> T sqs(Outage.Attempt<T> call) {
        return sqsOutage.call(call);
    }

    private static Set<String> own() {
        var files = new HashSet<>(ResultsRefresh.FILES);
        files.add(LogsLayout.LOGCOPY_LOG);
        files.add(DONE);
        files.add(CANCEL);
        return Set.copyOf(files);
    }
}
