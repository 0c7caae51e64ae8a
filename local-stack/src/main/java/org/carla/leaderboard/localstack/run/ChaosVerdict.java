package org.carla.leaderboard.localstack.run;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * What the chaos run proves, counted: every submission reached its scenario's status exactly once on EvalAI (the
 * final statuses its history entered, a repeated identical update not counted twice) and in DynamoDB (one final entry
 * per run in {@code status_history}, the scenario's status on the record); no run had two Jobs; every dead-letter queue
 * is empty; every planned outage was played; and, once everything is stopped, no process is left.
 */
public final class ChaosVerdict {

    private final int submissions;
    private final List<String> onceOnEvalAi = new ArrayList<>();
    private final List<String> onceInDynamoDb = new ArrayList<>();
    private final Map<String, String> wrong = new TreeMap<>();
    private final Map<String, Set<String>> twoJobs;
    private final int runs;
    private final int jobs;
    private final Map<String, Integer> deadLetters = new LinkedHashMap<>();
    private final List<Chaos.Done> played;
    private final List<String> chaosFailures;
    private final int planned;
    private final long seed;
    private final boolean ended;
    private final boolean noJobs;
    private List<String> processesLeft;

    private ChaosVerdict(List<SubmissionRun> runs, boolean ended, boolean noJobs, RunningStack stack,
            JobsSeen jobsSeen, Chaos chaos) {
        this.submissions = runs.size();
        this.ended = ended;
        this.noJobs = noJobs;
        for (SubmissionRun run : runs) {
            checkEvalAi(run);
            checkDynamoDb(run, stack);
        }
        this.twoJobs = jobsSeen.runsWithTwoJobs();
        this.runs = jobsSeen.byRun().size();
        this.jobs = jobsSeen.jobs();
        for (String queue : LocalStack.QUEUES) {
            deadLetters.put(queue + "-dlq", depth(stack, stack.deadLetterQueueUrl(queue)));
        }
        this.played = chaos.done();
        this.chaosFailures = chaos.failures();
        this.planned = chaos.plan().outages().size();
        this.seed = chaos.plan().seed();
    }

    /**
     * Looks at the system as it is now, once the submissions ended (or the run timed out: {@code ended} false) and
     * the chaos is over; {@code noJobs}: job-launcher removed every Job. Processes are checked after the stop.
     */
    public static ChaosVerdict of(List<SubmissionRun> runs, boolean ended, boolean noJobs, RunningStack stack,
            JobsSeen jobs, Chaos chaos) {
        return new ChaosVerdict(runs, ended, noJobs, stack, jobs, chaos);
    }

    /** The final statuses each run must reach, in order: a resumed submission fails once, then finishes. */
    static List<String> expectedFinals(Scenario scenario) {
        return scenario == Scenario.RESUME ? List.of("FAILED", "FINISHED") : List.of(scenario.expectedStatus());
    }

    /** The final statuses a history entered, in order; staying in one (the same update sent twice) counts once. */
    static List<String> finalsEntered(List<String> history) {
        var entered = new ArrayList<String>();
        String previous = null;
        for (String entry : history) {
            String status = entry == null ? "" : entry.toUpperCase(Locale.ROOT);
            boolean terminal = SubmissionStatus.parse(status).filter(SubmissionStatus::isTerminal).isPresent();
            if (terminal && !status.equals(previous)) {
                entered.add(status);
            }
            previous = status;
        }
        return entered;
    }

    private void checkEvalAi(SubmissionRun run) {
        var entered = finalsEntered(run.view().statusHistory());
        if (entered.equals(expectedFinals(run.scenario()))) {
            onceOnEvalAi.add(run.submissionId());
        } else {
            wrong.merge(run.submissionId(), "EvalAI entered " + entered + ", expected "
                    + expectedFinals(run.scenario()), (a, b) -> a + "; " + b);
        }
    }

    private void checkDynamoDb(SubmissionRun run, RunningStack stack) {
        String table = stack.evaluation().leaderboards().get(run.leaderboard()).submissionsTable();
        var item = stack.dynamoDb().getItem(r -> r.tableName(table).consistentRead(true).key(Map.of(
                SubmissionTable.TEAM_ID, AttributeValue.fromS(Long.toString(run.view().teamId())),
                SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(run.submissionId())))).item();
        var finalsByRun = new TreeMap<Integer, List<String>>();
        var history = item == null ? null : item.get(SubmissionTable.HISTORY);
        if (history != null && history.hasL()) {
            for (AttributeValue entry : history.l()) {
                var fields = entry.m();
                String status = fields.get(SubmissionTable.HISTORY_STATUS).s();
                if (SubmissionStatus.parse(status).filter(SubmissionStatus::isTerminal).isPresent()) {
                    int runNumber = Integer.parseInt(fields.get(SubmissionTable.HISTORY_RUN).n());
                    finalsByRun.computeIfAbsent(runNumber, ignored -> new ArrayList<>()).add(status);
                }
            }
        }
        var finals = finalsByRun.values().stream().flatMap(List::stream).toList();
        boolean oncePerRun = finalsByRun.values().stream().allMatch(statuses -> statuses.size() == 1);
        String status = item == null || item.get(SubmissionTable.STATUS) == null ? null
                : item.get(SubmissionTable.STATUS).s();
        if (oncePerRun && finals.equals(expectedFinals(run.scenario()))
                && run.scenario().expectedStatus().equals(status)) {
            onceInDynamoDb.add(run.submissionId());
        } else {
            wrong.merge(run.submissionId(), "DynamoDB holds " + status + ", final entries by run " + finalsByRun
                    + ", expected " + expectedFinals(run.scenario()), (a, b) -> a + "; " + b);
        }
    }

    private static int depth(RunningStack stack, String url) {
        var attributes = stack.sqs().getQueueAttributes(r -> r.queueUrl(url).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)).attributes();
        return Integer.parseInt(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                + Integer.parseInt(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    /** After {@link LocalSystem#close()}: the processes still alive. */
    public void processesLeft(List<ProcessHandle> left) {
        processesLeft = left.stream().map(p -> p.pid() + " " + p.info().command().orElse("?")).toList();
    }

    public int submissions() {
        return submissions;
    }

    public int onceOnEvalAi() {
        return onceOnEvalAi.size();
    }

    public int onceInDynamoDb() {
        return onceInDynamoDb.size();
    }

    public Map<String, Set<String>> runsWithTwoJobs() {
        return twoJobs;
    }

    public int deadLetters() {
        return deadLetters.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int outagesPlayed() {
        return played.size();
    }

    public int outagesPlanned() {
        return planned;
    }

    /** How many times each target went down (e.g. {@code job-launcher} → 2). */
    public Map<String, Long> downs() {
        return played.stream().collect(Collectors.groupingBy(done -> done.outage().target(), TreeMap::new,
                Collectors.counting()));
    }

    public List<String> processesLeft() {
        return processesLeft == null ? List.of() : processesLeft;
    }

    public boolean ended() {
        return ended;
    }

    public boolean noJobsLeft() {
        return noJobs;
    }

    public boolean passed() {
        return ended && noJobs && onceOnEvalAi() == submissions && onceInDynamoDb() == submissions && twoJobs.isEmpty()
                && deadLetters() == 0 && played.size() == planned && chaosFailures.isEmpty()
                && processesLeft != null && processesLeft.isEmpty();
    }

    public void print(PrintStream out) {
        out.printf(Locale.ROOT, "chaos (seed %d): %d of %d outages played:%n", seed, played.size(), planned);
        if (!ended) {
            out.println("  NOT every submission ended within the timeout");
        }
        if (!noJobs) {
            out.println("  a Job was still in the Kubernetes API a minute after the end");
        }
        played.stream().sorted(java.util.Comparator.comparing(done -> done.outage().at())).forEach(done -> out.printf(
                Locale.ROOT, "  at +%3d s  %-15s %-10s for %2d s, back (ready) after %5.1f s%n",
                done.outage().at().toSeconds(), done.outage().target(), done.outage().kind().label(),
                done.outage().lasting().toSeconds(), (done.back().toEpochMilli() - done.down().toEpochMilli()) / 1000.0));
        chaosFailures.forEach(failure -> out.println("  FAILED: " + failure));
        out.printf(Locale.ROOT, "reached their scenario's status exactly once on EvalAI: %d/%d%n", onceOnEvalAi(),
                submissions);
        out.printf(Locale.ROOT, "reached their scenario's status exactly once in DynamoDB: %d/%d%n",
                onceInDynamoDb(), submissions);
        wrong.forEach((submission, why) -> out.println("  submission " + submission + ": " + why));
        out.printf(Locale.ROOT, "runs with two Jobs: %d (%d runs, %d Jobs)%s%n", twoJobs.size(), runs, jobs,
                twoJobs.isEmpty() ? "" : " " + twoJobs.keySet());
        out.printf(Locale.ROOT, "messages in dead-letter queues: %d %s%n", deadLetters(), deadLetters);
        out.printf(Locale.ROOT, "processes left: %s%n", processesLeft == null ? "not checked yet"
                : processesLeft.size() + (processesLeft.isEmpty() ? "" : " " + processesLeft));
    }
}
