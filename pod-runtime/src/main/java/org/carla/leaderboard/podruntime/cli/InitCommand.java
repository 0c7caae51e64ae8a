package org.carla.leaderboard.podruntime.cli;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PYTHON_API_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PYTHON_API_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RESUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RUN;
import static org.carla.leaderboard.domain.pod.PodEnvironment.S3_BUCKET;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIO_RUNNER_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIO_RUNNER_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SUBMISSION_ID;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_PAIRS;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.podruntime.ExitCodes;
import org.carla.leaderboard.podruntime.init.LogsVolume;
import org.carla.leaderboard.podruntime.init.ResumeDownload;
import org.carla.leaderboard.podruntime.init.AwsWait;
import org.carla.leaderboard.podruntime.init.LedgerInit;
import org.carla.leaderboard.podruntime.init.SoftwareVersions;
import org.carla.leaderboard.podruntime.init.SubmissionArchive;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.carla.leaderboard.podruntime.volume.FolderCopy;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pod-runtime init}: the {@code private-contents} init container. Copies the official Leaderboard, ScenarioRunner
 * and CARLA PythonAPI into their volumes, makes the run's route ledger when the run has one ({@code LEDGER_TABLE}), and
 * prepares the logs volume, from S3 on a resume — RESUME, or a pod that replaces one of its run (the run's files are in
 * S3 already).
 */
@Command(mixinStandardHelpOptions = true, name = "init", description = "Fills the Leaderboard volumes and prepares the logs volume (downloads it on RESUME).")
public class InitCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(InitCommand.class);

    /** Source variable (the leaderboard image's own folder) → target variable and its default (the volume). */
    private static final String[][] VOLUMES = {
        { LEADERBOARD_ROOT, LEADERBOARD_VOLUME, "/tmp/leaderboard" },
        { SCENARIO_RUNNER_ROOT, SCENARIO_RUNNER_VOLUME, "/tmp/scenario_runner" },
        { CARLA_PYTHON_API_ROOT, CARLA_PYTHON_API_VOLUME, "/tmp/CARLA" },
    };

    @Inject
    SubmissionArchive archive;

    /** Made only for a run with a route ledger. */
    @Inject
    Instance<DynamoDbClient> dynamoDb;

    /**
     * What this run drives with, read in the Leaderboard image's folders and the versions volume (the CARLA server's),
     * to the control object the relay shows in the final metadata. Unknown versions are left out; an S3 failure leaves them all unknown and the run goes on.
     */
    private void recordVersions(Map<String, String> env, String bucket, String submissionId) {
        int run = PodEnvironment.integer(env, RUN).orElse(1);
        RunVersions versions = SoftwareVersions.read(run, PodEnvironment.value(env, LEADERBOARD_ROOT).map(Path::of),
                PodEnvironment.value(env, SCENARIO_RUNNER_ROOT).map(Path::of),
                PodEnvironment.value(env, CARLA_PYTHON_API_ROOT).map(Path::of),
                PodEnvironment.value(env, PodEnvironment.VERSIONS_DIR).map(Path::of));
        try {
            AwsWait.standard().untilAnswered("record the run's versions", () -> {
                archive.putVersions(bucket, submissionId, versions);
                return true;
            });
            LOG.infof("init: run %d drives with %s", run, versions.known());
        } catch (SdkException e) {
            LOG.warnf("init: the run's versions %s are not recorded: %s", versions.known(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = System.getenv();
        Path logs = PodEnvironment.logsDir(env);
        int workerPairs;
        boolean resume;
        Optional<LedgerInit> ledger;
        Optional<String> bucket = PodEnvironment.value(env, S3_BUCKET);
        Optional<String> submission = PodEnvironment.value(env, SUBMISSION_ID);
        Optional<String> podPrefix;
        try {
            workerPairs = PodEnvironment.integer(env, WORKER_PAIRS).orElse(1);
            // This pod's files: the submission's prefix, or its index's folder in a run of several pods.
            int index = PodEnvironment.integer(env, PodEnvironment.JOB_COMPLETION_INDEX).orElse(0);
            int pods = PodEnvironment.positive(env, PodEnvironment.PODS).orElse(1);
            SubmissionLayout.podDir(index, pods);
            podPrefix = submission.map(id -> SubmissionLayout.podPrefix(id, index, pods));
            resume = PodEnvironment.flag(env, RESUME);
            if (resume && (bucket.isEmpty() || submission.isEmpty())) {
                throw new IllegalArgumentException("RESUME is set but S3_BUCKET or SUBMISSION_ID is not");
            }
            ledger = LedgerInit.from(env);
        } catch (IllegalArgumentException e) {
            LOG.errorf("init: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
            return ExitCodes.BAD_CONFIGURATION;
        }
        for (String[] volume : VOLUMES) {
            var source = PodEnvironment.value(env, volume[0]);
            if (source.isEmpty()) {
                LOG.infof("init: %s is not set, nothing to copy into %s", volume[0], volume[1]);
                continue;
            }
            Path target = Path.of(PodEnvironment.value(env, volume[1]).orElse(volume[2]));
            long files = FolderCopy.copyContents(Path.of(source.get()), target);
            LOG.infof("init: copied %d files of %s (%s) into %s", files, volume[0], source.get(), target);
        }
        try {
            // A pod the Job controller replaced (its node lost, an eviction) has the same environment as the first
            // and an empty volume: the run's files already in S3 make it resume as a resumed run does.
            if (!resume && bucket.isPresent() && submission.isPresent()
                    && AwsWait.standard().untilAnswered("does the run have files", () -> archive.holdsFiles(
                            bucket.get(), podPrefix.get()))) {
                LOG.infof("init: s3://%s/%s holds the run's files already: this pod replaces one of the run, resuming",
                        bucket.get(), podPrefix.get());
                resume = true;
            }
        } catch (SdkException e) {
            LOG.errorf("init: cannot tell whether s3://%s/%s holds files, exit %d: %s", bucket.get(),
                    podPrefix.get(), ExitCodes.CRASHED, e.getMessage());
            return ExitCodes.CRASHED;
        }
        if (resume) {
            try {
                int deleted = archive.deleteStatusFiles(bucket.get(), podPrefix.get());
                LOG.infof("init: resume of %s: deleted %d status files under s3://%s/%scontainers-status/",
                        submission.get(), deleted, bucket.get(), podPrefix.get());
                long downloaded = ResumeDownload.run(logs, staging -> archive.download(bucket.get(), podPrefix.get(),
                        staging));
                LOG.infof("init: resume of %s: downloaded %d files from s3://%s/%s into %s", submission.get(),
                        downloaded, bucket.get(), podPrefix.get(), logs);
            } catch (SdkException | IOException e) {
                // Kubernetes retries the init container; the logs volume holds nothing of this attempt.
                LOG.errorf("init: resume of %s: download from s3://%s/%s failed, exit %d: %s", submission.get(),
                        bucket.get(), podPrefix.get(), ExitCodes.CRASHED, e.getMessage());
                return ExitCodes.CRASHED;
            }
        } else {
            LOG.infof("init: fresh run, creating the logs layout in %s", logs);
        }
        if (ledger.isPresent()) {
            LedgerInit init = ledger.get();
            try {
                init.entries(Map.of()); // a routes file that does not hold the run's routes is the Job's fault
            } catch (IllegalArgumentException e) {
                LOG.errorf("init: bad configuration, exit %d: %s", ExitCodes.BAD_CONFIGURATION, e.getMessage());
                return ExitCodes.BAD_CONFIGURATION;
            }
            Clock clock = Clock.systemUTC();
            try {
                RunItem run = AwsWait.standard().untilAnswered("make the route ledger", () -> init.make(
                        partition -> new RouteLedger(dynamoDb.get(), init.table(), partition, new EntryChanges(
                                EntryChanges.DEFAULT_LEASE, RetryBudget.of(0), clock), clock), clock));
                LOG.infof("init: route ledger %s in %s: %d entries, %s schedule, %d pods × %d pairs", init.partition(),
                        init.table(), run.total(), run.schedule().value(), run.pods(), run.pairsPerPod());
            } catch (SdkException e) {
                LOG.errorf("init: cannot make the route ledger %s in %s, exit %d: %s", init.partition(), init.table(),
                        ExitCodes.CRASHED, e.getMessage());
                return ExitCodes.CRASHED;
            }
        }
        if (bucket.isPresent() && submission.isPresent()) {
            recordVersions(env, bucket.get(), submission.get());
        }
        LogsVolume.prepare(logs, workerPairs, ledger.isPresent());
        LOG.infof("init: logs volume %s ready for %d worker pairs", logs, workerPairs);
        return ExitCodes.DONE;
    }
}
