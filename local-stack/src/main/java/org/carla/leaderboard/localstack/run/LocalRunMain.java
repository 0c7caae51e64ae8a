package org.carla.leaderboard.localstack.run;

import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./run-local.sh}: the whole system on this machine, sample submissions through the real path, progress while
 * they run, a table at the end. Exit 0 when every submission reached its scenario's status; 1 otherwise; 2 bad usage.
 */
public final class LocalRunMain {

    private LocalRunMain() {
    }

    /**
     * @param seed the chaos plan's seed ({@code --seed}); with {@code --chaos} and no seed, one drawn at random and
     *             printed, so a run can be played again
     */
    record Options(int submissions, String scenario, boolean keep, boolean help, Path projectDir, Path workDir,
            Duration timeout, boolean chaos, long seed, Packaging packaging) {

        static Options parse(String[] args) {
            Integer submissions = null;
            String scenario = "happy";
            boolean keep = false;
            boolean chaos = false;
            Long seed = null;
            Path projectDir = Path.of("").toAbsolutePath();
            Path workDir = null;
            Duration timeout = null;
            Packaging packaging = Packaging.JVM;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--help", "-h" -> {
                        return new Options(2, scenario, false, true, projectDir, workDir, Duration.ZERO, false, 0,
                                packaging);
                    }
                    case "--chaos" -> chaos = true;
                    case "--seed" -> seed = number(value(args, ++i, "--seed"), "--seed");
                    case "--submissions" -> submissions = positive(value(args, ++i, "--submissions"), "--submissions");
                    case "--scenario" -> scenario = value(args, ++i, "--scenario");
                    case "--keep" -> keep = true;
                    case "--native" -> packaging = Packaging.NATIVE;
                    case "--project-dir" -> projectDir = Path.of(value(args, ++i, "--project-dir")).toAbsolutePath();
                    case "--work-dir" -> workDir = Path.of(value(args, ++i, "--work-dir")).toAbsolutePath();
                    case "--timeout" -> timeout = Duration.ofSeconds(positive(value(args, ++i, "--timeout"), "--timeout"));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            int count = submissions != null ? submissions : scenario.equalsIgnoreCase("mixed") ? Scenario.MIXED.size()
                    : scenario.equalsIgnoreCase("all") ? Scenario.values().length : 2;
            Scenario.plan(scenario, count); // checks the name
            if (seed != null && !chaos) {
                throw new IllegalArgumentException("--seed is the chaos plan's: it needs --chaos");
            }
            if (chaos && keep) {
                throw new IllegalArgumentException("--keep and --chaos do not go together");
            }
            if (workDir == null) {
                workDir = projectDir.resolve("local-stack/target/run")
                        .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            }
            if (timeout == null) {
                // A chaos run makes its submissions over the chaos window, and its outages slow them down.
                timeout = chaos ? Duration.ofMinutes(10).plus(ChaosPlan.window(count).multipliedBy(2))
                        : Duration.ofMinutes(10);
            }
            return new Options(count, scenario, keep, false, projectDir, workDir, timeout, chaos,
                    seed != null ? seed : new SecureRandom().nextInt(1_000_000), packaging);
        }

        private static long number(String text, String option) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a whole number, not " + text);
            }
        }

        private static String value(String[] args, int index, String option) {
            if (index >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }

        private static int positive(String text, String option) {
            try {
                int value = Integer.parseInt(text);
                if (value >= 1) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + " takes a positive whole number, not " + text);
        }
    }

    static String usage() {
        return """
                Usage: ./run-local.sh [--submissions N] [--scenario S] [--keep] [--native] [--timeout S] [--work-dir DIR]
                       ./run-local.sh --scenario mixed --submissions N --chaos [--seed S]
                       ./run-local.sh --stack-only [stack options]      (see ./run-local.sh --stack-only --help)

                  --submissions N   sample submissions to create on the EvalAI stand-in (default 2; 4 with mixed,
                                    %d with all), alternating between two tracks (Leaderboard 2.0
                                    SENSORS_QUALIFIER, 1.0 MAP)
                  --scenario S      happy:          every submission runs to the end (FINISHED)
                                    crash:          CARLA dies once mid-run, the pair restarts and resumes (FINISHED)
                                    cancel:         cancelled on EvalAI once its first route is reported (CANCELLED)
                                    resume:         fails past its restarts (FAILED), is resumed from EvalAI and
                                                    finishes without re-running its finished routes (FINISHED)
                                    killed:         the agent's container is SIGKILLed at the third route (no crash
                                                    file), restarts and resumes from its checkpoint (FINISHED)
                                    node-lost:      the node of its pod is lost once a route is reported: the Job
                                                    controller's new pod resumes from S3 (FINISHED)
                                    unpullable:     its image is in no registry: the run ends naming it, never
                                                    running (FAILED)
                                    capacity:       made once the others' pods run, it waits for a GPU node longer
                                                    than its track's deadline (%d s, Leaderboard 1.0 SENSORS), then
                                                    a node comes and it runs to the end (FINISHED)
                                    cancel-pending: made like capacity, cancelled on EvalAI while its pod waits for a
                                                    node: its Job is deleted, the pod never runs (CANCELLED)
                                    team-name:      a team name with NUL, U+FFFE, U+FFFF, a lone surrogate and shell
                                                    characters (FINISHED)
                                    forged-status:  the participant forges every status file and a cancel at the
                                                    second route (FAILED: a cancel nobody asked for)
                                    forged-scores:  the participant scores every route NaN and puts links where
                                                    logcopy writes, a 10 MB log line, a too long S3 key (FAILED)
                                    forged-links:   the participant's checkpoint is a link out of the logs volume,
                                                    evalai/stdout.txt a FIFO (FAILED: no route counts)
                                    claimed:        two pairs claim uneven routes from the route ledger, the
                                                    longest first (Leaderboard 2.0 MAP_QUALIFIER) (FINISHED)
                                    spot:           as claimed, its node shut down (SIGTERM, grace, kill) once a
                                                    route is filed while another drives: the new pod drives only
                                                    the routes given back (FINISHED)
                                    pods:           two pods of one pair (an Indexed Job) claim from one route
                                                    ledger, each under its own pod-<i>/ (Leaderboard 2.0 MAP)
                                                    (FINISHED)
                                    mixed:          happy, crash, cancel and resume, cycled, all at once
                                    all:            every scenario above, cycled, all at once
                  --keep            leave everything running at the end and print the endpoints (Ctrl-C stops)
                  --native          the services, ops-console and pod-runtime as their native executables
                                    (<module>/target/*-runner; run-local.sh builds them with GRAALVM_HOME's
                                    native-image), not from their jars
                  --chaos           make the submissions one by one over a window (12 s each, at least 60 s) while,
                                    at moments drawn from the seed: each of ingest-service, job-launcher and
                                    results-relay is killed (SIGKILL) and started again twice; ElasticMQ, DynamoDB
                                    Local and S3Proxy are each killed or frozen for 5-20 s; EvalAI fails twice for
                                    10-40 s (503, 429, no answer, or connections refused). Exit 0 only when every
                                    submission reached its scenario's status exactly once on EvalAI and in DynamoDB,
                                    no run had two Jobs, every dead-letter queue is empty and no process is left
                  --seed S          the chaos plan's seed (default: drawn and printed); the same seed, the same plan
                  --timeout S       give up after S seconds (default 600; with --chaos, 600 + twice the window)
                  --work-dir DIR    logs, data, S3 objects (default local-stack/target/run/<date-time>)
                  --help            this text

                Exit status: 0 when every submission reached its scenario's status on EvalAI (and, with --chaos,
                everything above held), 1 otherwise, 2 on bad usage. No process is left behind (unless --keep, until
                Ctrl-C).""".formatted(Scenario.values().length, LocalRunConfig.CAPACITY_DEADLINE.toSeconds());
    }

    public static void main(String[] args) throws InterruptedException {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("run-local: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(usage());
            return;
        }
        System.exit(run(options, System.out));
    }

    static int run(Options options, PrintStream out) throws InterruptedException {
        var plan = Scenario.plan(options.scenario(), options.submissions());
        var config = LocalRunConfig.demo(options.projectDir(), options.workDir(), options.packaging());
        long started = System.nanoTime();
        Path stackLog = RunLog.toFile(config.workDir().resolve("local-run.log"));
        out.println("run-local: starting the local stack, the three services and ops-console ("
                + (config.packaging() == Packaging.NATIVE ? "native executables" : "jars") + "; work dir "
                + config.workDir() + ", the stack's log " + stackLog + ")");
        LocalSystem system;
        try {
            system = LocalSystem.start(config);
        } catch (RuntimeException e) {
            out.println("run-local: could not start: " + e.getMessage());
            return 1;
        }
        int status;
        ChaosVerdict verdict = null;
        try {
            out.printf(Locale.ROOT, "run-local: ready in %.0f s; submitting %d (%s)%n", seconds(started),
                    plan.size(), options.scenario().toLowerCase(Locale.ROOT));
            out.println("run-local: the operators' page: " + system.consoleUrl() + " (operator token in "
                    + config.operatorTokenFile() + ")");
            var run = new LocalRun(system);
            long submitted = System.nanoTime();
            var board = new ProgressBoard(out, System.console() != null);
            boolean ended;
            boolean noJobs;
            if (options.chaos()) {
                var chaos = ChaosPlan.of(options.seed(), ChaosPlan.window(plan.size()));
                out.printf(Locale.ROOT, "run-local: chaos, seed %d (./run-local.sh --scenario %s --submissions %d"
                        + " --chaos --seed %d plays it again): %d submissions over %d s, and%n", options.seed(),
                        options.scenario(), plan.size(), options.seed(), plan.size(), chaos.window().toSeconds());
                chaos.outages().forEach(outage -> out.println("  " + outage.describe()));
                verdict = ChaosRun.play(system, run, plan, chaos, options.timeout(), board);
                ended = verdict.ended();
                noJobs = verdict.noJobsLeft();
            } else {
                run.submit(plan);
                ended = run.await(options.timeout(), board, runs -> { });
                noJobs = ended && run.awaitNoJobs(Duration.ofSeconds(60));
            }
            out.println();
            out.print(run.table());
            out.printf(Locale.ROOT, "%nrun-local: %s in %.0f s after submitting (%.0f s in all)%n",
                    ended ? "every submission ended" : "TIMED OUT", seconds(submitted), seconds(started));
            if (ended && !noJobs) {
                out.println("run-local: a Job was still in the Kubernetes API a minute after the end");
            }
            out.println("run-local: logs of the services: " + config.workDir().resolve("services")
                    + ", of each Job's containers: " + system.stack().workDir().resolve("kubernetes/jobs"));
            boolean expected = ended && noJobs && run.runs().stream().allMatch(SubmissionRun::asExpected);
            status = expected ? 0 : 1;
            if (options.keep()) {
                out.println();
                out.println("run-local: --keep: everything keeps running; Ctrl-C stops it. Endpoints:");
                system.endpoints().forEach((name, endpoint) -> out.printf("  %-16s %s%n", name, endpoint));
                out.println("  EvalAI host controls: " + system.stack().evalAi().controlUrl()
                        + "  (GET /_standin/submissions, POST /_standin/submissions ...)");
                out.println("  Quarkus overrides of the services: " + config.serviceDir("ingest-service")
                        .resolve("config/application.properties") + " (and the other two)");
                new CountDownLatch(1).await(); // the shutdown hook stops everything
            }
        } finally {
            system.close();
        }
        List<ProcessHandle> left = LocalSystem.leftoverProcesses();
        if (verdict != null) {
            verdict.processesLeft(left);
            out.println();
            verdict.print(out);
            status = verdict.passed() && status == 0 ? 0 : 1;
        }
        if (!left.isEmpty()) {
            out.println("run-local: processes left behind, killing them: " + left.stream()
                    .map(p -> p.pid() + " " + p.info().command().orElse("?")).toList());
            left.forEach(ProcessHandle::destroyForcibly);
            return 1;
        }
        out.println("run-local: everything stopped, no process left" + (status == 0 ? "" : verdict != null
                ? "; the chaos run did NOT pass" : "; NOT every submission reached its expected status"));
        out.printf(Locale.ROOT, "run-local: %.0f s in all%n", seconds(started));
        return status;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
