package org.carla.leaderboard.podruntime.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import jakarta.inject.Inject;

import org.carla.leaderboard.podruntime.init.FolderCopy;
import org.carla.leaderboard.podruntime.init.LogsVolume;
import org.carla.leaderboard.podruntime.init.ResumeDownload;
import org.carla.leaderboard.podruntime.init.SubmissionArchive;
import org.carla.leaderboard.podruntime.role.PairSettings;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * {@code pod-runtime init}: the {@code private-contents} init container. Copies the official Leaderboard, ScenarioRunner
 * and CARLA PythonAPI into their volumes, and prepares the logs volume, from S3 on a resume.
 */
@Command(mixinStandardHelpOptions = true, name = "init", description = "Fills the Leaderboard volumes and prepares the logs volume (downloads it on RESUME).")
public class InitCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(InitCommand.class);

    /** Source variable (the leaderboard image's own folder) → target variable and its default (the volume). */
    private static final String[][] VOLUMES = {
        { "LEADERBOARD_ROOT", "LEADERBOARD_VOLUME", "/tmp/leaderboard" },
        { "SCENARIO_RUNNER_ROOT", "SCENARIO_RUNNER_VOLUME", "/tmp/scenario_runner" },
        { "CARLA_PYTHON_API_ROOT", "CARLA_PYTHON_API_VOLUME", "/tmp/CARLA" },
    };

    @Inject
    SubmissionArchive archive;

    @Override
    public Integer call() throws Exception {
        Map<String, String> env = System.getenv();
        int workerPairs;
        Path logs = Path.of(env.getOrDefault("LOGS_DIR", "/tmp/logs"));
        boolean resume;
        try {
            workerPairs = PairSettings.integer(env, "WORKER_PAIRS").orElse(1);
            resume = PairSettings.flag(env, "RESUME");
        } catch (IllegalArgumentException e) {
            LOG.errorf("init: bad configuration, exit 2: %s", e.getMessage());
            return 2;
        }
        for (String[] volume : VOLUMES) {
            var source = PairSettings.value(env, volume[0]);
            if (source.isEmpty()) {
                LOG.infof("init: %s is not set, nothing to copy into %s", volume[0], volume[1]);
                continue;
            }
            Path target = Path.of(env.getOrDefault(volume[1], volume[2]));
            long files = FolderCopy.copyContents(Path.of(source.get()), target);
            LOG.infof("init: copied %d files of %s (%s) into %s", files, volume[0], source.get(), target);
        }
        if (resume) {
            String bucket = PairSettings.value(env, "S3_BUCKET").orElse(null);
            String submission = PairSettings.value(env, "SUBMISSION_ID").orElse(null);
            if (bucket == null || submission == null) {
                LOG.error("init: RESUME is set but S3_BUCKET or SUBMISSION_ID is not, exit 2");
                return 2;
            }
            try {
                int deleted = archive.deleteStatusFiles(bucket, submission);
                LOG.infof("init: resume of %s: deleted %d status files under s3://%s/%s/containers-status/", submission,
                        deleted, bucket, submission);
                long downloaded = ResumeDownload.run(logs, staging -> archive.download(bucket, submission, staging));
                LOG.infof("init: resume of %s: downloaded %d files from s3://%s/%s/ into %s", submission, downloaded,
                        bucket, submission, logs);
            } catch (SdkException | IOException e) {
                // Kubernetes retries the init container; the logs volume holds nothing of this attempt.
                LOG.errorf("init: resume of %s: download from s3://%s/%s/ failed, exit 1: %s", submission, bucket,
                        submission, e.getMessage());
                return 1;
            }
        } else {
            LOG.infof("init: fresh run, creating the logs layout in %s", logs);
        }
        LogsVolume.prepare(logs, workerPairs);
        LOG.infof("init: logs volume %s ready for %d worker pairs", logs, workerPairs);
        return 0;
    }
}
