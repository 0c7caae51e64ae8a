package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.carla.leaderboard.localstack.run.ChaosPlan;
import org.carla.leaderboard.localstack.run.ChaosRun;
import org.carla.leaderboard.localstack.run.ChaosVerdict;
import org.carla.leaderboard.localstack.run.LocalRun;
import org.carla.leaderboard.localstack.run.LocalRunConfig;
import org.carla.leaderboard.localstack.run.LocalSystem;
import org.carla.leaderboard.localstack.run.Packaging;
import org.carla.leaderboard.localstack.run.ProgressBoard;
import org.carla.leaderboard.localstack.run.RunLog;
import org.carla.leaderboard.localstack.run.Scenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code ./run-local.sh --scenario mixed --submissions 4 --chaos --seed 1}, small and with a fixed seed: the four
 * scenarios made one by one over a minute while each service is SIGKILLed and started twice, ElasticMQ, DynamoDB Local
 * and S3Proxy are each taken down, and EvalAI fails twice. Then what the chaos run's verdict counts, one claim a test.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosRunIT {

    static final long SEED = 1;
    static final int SUBMISSIONS = 4;
    private static final Duration TIMEOUT = Duration.ofMinutes(15);

    private static LocalSystem system;
    private static ChaosVerdict verdict;

    @BeforeAll
    static void playTheChaos() throws Exception {
        Path projectDir = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
        Path workDir = Path.of(System.getProperty("e2e.work-dir", "target/e2e-run")).toAbsolutePath()
                .resolve("chaos-" + System.currentTimeMillis());
        RunLog.toFile(workDir.resolve("local-run.log"));
        system = LocalSystem.start(LocalRunConfig.demo(projectDir, workDir, Packaging.fromSystemProperty()));
        var plan = Scenario.plan("mixed", SUBMISSIONS);
        var chaos = ChaosPlan.of(SEED, ChaosPlan.window(SUBMISSIONS));
        var run = new LocalRun(system);
        try {
            verdict = ChaosRun.play(system, run, plan, chaos, TIMEOUT, new ProgressBoard(System.out, false));
            System.out.println(run.table());
        } finally {
            system.close();
        }
        if (verdict != null) {
            verdict.processesLeft(LocalSystem.leftoverProcesses());
            verdict.print(System.out);
        }
    }

    @AfterAll
    static void stopEverything() {
        if (system != null) {
            system.close();
        }
    }

    @Test
    @Order(1)
    void everyOutageOfThePlanWasPlayedWhileTheSubmissionsRan() {
        assertThat(verdict.ended()).as("every submission ended within %s", TIMEOUT).isTrue();
        assertThat(verdict.outagesPlayed()).isEqualTo(verdict.outagesPlanned()).isEqualTo(11);
        for (String service : ChaosPlan.SERVICES) {
            assertThat(verdict.downs()).as(service).containsEntry(service, 2L);
        }
        for (String server : ChaosPlan.SERVERS) {
            assertThat(verdict.downs()).as(server).containsEntry(server, 1L);
        }
        assertThat(verdict.downs()).containsEntry(ChaosPlan.EVALAI, 2L);
    }

    @Test
    @Order(2)
    void everySubmissionReachedItsScenariosStatusExactlyOnceOnEvalAiAndInDynamoDb() {
        assertThat(verdict.onceOnEvalAi()).isEqualTo(SUBMISSIONS);
        assertThat(verdict.onceInDynamoDb()).isEqualTo(SUBMISSIONS);
    }

    @Test
    @Order(3)
    void noRunHadTwoJobsAndNoJobIsLeft() {
        assertThat(verdict.runsWithTwoJobs()).isEmpty();
        assertThat(verdict.noJobsLeft()).isTrue();
    }

    @Test
    @Order(4)
    void nothingWasDeadLettered() {
        assertThat(verdict.deadLetters()).isZero();
    }

    @Test
    @Order(5)
    void noProcessIsLeft() {
        assertThat(verdict.processesLeft()).isEmpty();
        assertThat(verdict.passed()).isTrue();
    }
}
