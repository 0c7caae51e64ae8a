package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LogcopySettingsTests {

    private static Map<String, String> env() {
        var env = new HashMap<String, String>();
        env.put("S3_BUCKET", "carla-leaderboard-20");
        env.put("PROGRESS_QUEUE_URL", "http://127.0.0.1:9324/000000000000/progress-reports");
        env.put("WORKER_PAIRS", "4");
        env.put("EXPECTED_ROUTES", "20");
        env.put("SUBMISSION_ID", "123456");
        env.put("RUN", "2");
        env.put("TEAM_ID", "42");
        env.put("LEADERBOARD", "leaderboard-20");
        env.put("RESTART_LIMIT", "7");
        return env;
    }

    @Test
    void readsTheJobsEnvironmentWithTheContractsDefaults() {
        LogcopySettings settings = LogcopySettings.fromEnv(env());

        assertThat(settings.logsDir()).isEqualTo(Path.of("/tmp/logs"));
        assertThat(settings.statusDir()).isEqualTo(Path.of("/tmp/logs/containers-status"));
        assertThat(settings.period()).isEqualTo(Duration.ofSeconds(10));
        assertThat(settings.submissionId()).isEqualTo("123456");
        assertThat(settings.prefix()).isEqualTo("123456/");
        assertThat(settings.workerPairs()).isEqualTo(4);
        assertThat(settings.restartLimit()).isEqualTo(7);
        assertThat(settings.expectedRoutes()).hasValue(20);
        assertThat(settings.submission().teamId()).isEqualTo(42);
        assertThat(settings.run()).isEqualTo(2);
        assertThat(settings.heartbeat()).isEqualTo(Duration.ofMinutes(5));
        assertThat(settings.uploadInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.partSize()).isEqualTo(8 * 1024 * 1024);
    }

    @Test
    void theLocalRunnerMovesTheFoldersAndThePeriod() {
        var env = env();
        env.put("LOGS_DIR", "/work/run/logs");
        env.put("STATUS_DIR", "/work/run/logs/containers-status");
        env.put("LOGS_PERIOD", "0.5");
        assertThat(LogcopySettings.fromEnv(env).logsDir()).isEqualTo(Path.of("/work/run/logs"));
        assertThat(LogcopySettings.fromEnv(env).statusDir()).isEqualTo(Path.of("/work/run/logs/containers-status"));
        assertThat(LogcopySettings.fromEnv(env).uploadInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(LogcopySettings.fromEnv(env).period()).isEqualTo(Duration.ofMillis(500));
        env.put("LOGS_PERIOD", "PT1M");
        assertThat(LogcopySettings.fromEnv(env).period()).isEqualTo(Duration.ofMinutes(1));
        assertThat(LogcopySettings.fromEnv(env).uploadInterval()).isEqualTo(Duration.ofMinutes(1));
        env.put("LOGS_UPLOAD_INTERVAL", "2.5");
        assertThat(LogcopySettings.fromEnv(env).uploadInterval()).isEqualTo(Duration.ofMillis(2500));
    }

    /** The crash budget only the Job knows: without it logcopy would let the pairs restart until the deadline. */
    @Test
    void theRestartLimitIsRequiredAndAtLeastOne() {
        var env = env();
        env.put("RESTART_LIMIT", "1");
        assertThat(LogcopySettings.fromEnv(env).restartLimit()).isOne();
        env.remove("RESTART_LIMIT");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("RESTART_LIMIT is not set");
        env.put("RESTART_LIMIT", " ");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("RESTART_LIMIT is not set");
        env.put("RESTART_LIMIT", "0");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessage("RESTART_LIMIT must be 1 or more, was 0");
        env.put("RESTART_LIMIT", "-3");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessage("RESTART_LIMIT must be 1 or more, was -3");
        env.put("RESTART_LIMIT", "six");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env))
                .hasMessage("RESTART_LIMIT must be a whole number, was 'six'");
    }

    @Test
    void aBadValueIsNamed() {
        var env = env();
        env.remove("S3_BUCKET");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessage("S3_BUCKET is not set");
        env.put("S3_BUCKET", "b");
        env.put("WORKER_PAIRS", "zero");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("WORKER_PAIRS must be");
        env.put("WORKER_PAIRS", "2");
        env.put("LOGS_PERIOD", "soon");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("LOGS_PERIOD must be");
        env.remove("LOGS_PERIOD");
        env.put("SUBMISSION_ID", "../other");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("SUBMISSION_ID must be");
        env.put("SUBMISSION_ID", "0");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageContaining("submission_pk");
        env.put("SUBMISSION_ID", "123456");
        env.put("LEADERBOARD", "Leaderboard 20; rm -rf /");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageContaining("leaderboard");
        env.put("LEADERBOARD", "leaderboard-20");
        env.put("RUN", "0");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env)).hasMessageStartingWith("RUN must be");
        env.put("RUN", "1");
        env.put("STATUS_DIR", "/elsewhere");
        assertThatThrownBy(() -> LogcopySettings.fromEnv(env))
                .hasMessage("STATUS_DIR must be $LOGS_DIR/containers-status, was /elsewhere");
    }
}
