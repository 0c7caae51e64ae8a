package org.carla.leaderboard.console.service;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.client.EvalAiHost;
import org.carla.leaderboard.console.config.ConsoleConfig;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.messaging.DeadLetterQueue;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.jboss.logging.Logger;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * What an operator can do, each action idempotent and logged with the operator's identity:
 * <ul>
 * <li>cancel: EvalAI's own cancel (the host's {@code update_submission_meta} with status {@code cancelled}); the
 * backend then treats it as any participant's cancel: results-relay sees it at its next check of the run and stops
 * the pod, and reports CANCELLED;</li>
 * <li>resume: EvalAI's host resume of a failed submission (status {@code resuming}, and EvalAI announces it again on
 * {@code submissions}); ingest-service then opens the next run;</li>
 * <li>redrive: dead-lettered messages back to their queue (messaging's {@link DeadLetterQueue}).</li>
 * </ul>
 * The console never writes our records nor EvalAI's results: results-relay stays their only writer.
 */
@ApplicationScoped
public class OperatorActions {

    private static final Logger LOG = Logger.getLogger(OperatorActions.class);

    private final SubmissionLookup lookup;
    private final EvalAiHost evalAi;
    private final SqsClient sqs;
    private final QueuesConfig queues;
    private final Looks looks;
    private final ConsoleConfig config;

    OperatorActions(SubmissionLookup lookup, EvalAiHost evalAi, SqsClient sqs, QueuesConfig queues,
            Looks looks, ConsoleConfig config) {
        this.lookup = lookup;
        this.evalAi = evalAi;
        this.sqs = sqs;
        this.queues = queues;
        this.looks = looks;
        this.config = config;
    }

    public ActionResult cancel(String submissionId, String teamId, String leaderboard, String operator) {
        var found = lookup.find(submissionId, teamId, leaderboard);
        long pk = Long.parseLong(found.submissionId());
        var onEvalAi = evalAi.submission(pk);
        EvalAiStatus status = onEvalAi.map(s -> EvalAiStatus.parse(s.status())).orElse(null);
        var decision = ActionRules.cancel(found.submissionId(), found.record(), status);
        String target = "submission " + found.submissionId();
        switch (decision.verdict()) {
            case REFUSED -> throw refused(operator, "cancel", target, decision.reason());
            case DONE_ALREADY -> {
                log(operator, "cancel", target, "already done: " + decision.reason());
                return ActionResult.doneAlready("cancel", target, decision.reason(), operator);
            }
            default -> {
            }
        }
        if (onEvalAi.isEmpty()) {
            throw refused(operator, "cancel", target, "EvalAI knows no submission " + found.submissionId());
        }
        long challenge = challenge(found).orElseThrow(() -> refused(operator, "cancel", target,
                "the record of submission " + found.submissionId() + " names no EvalAI challenge"));
        evalAi.cancel(challenge, pk);
        looks.refreshed();
        String message = "cancelled on EvalAI; results-relay stops the run at its next check and reports it CANCELLED";
        log(operator, "cancel", target, message);
        return ActionResult.done("cancel", target, message, operator);
    }

    public ActionResult resume(String submissionId, String teamId, String leaderboard, String operator) {
        var found = lookup.find(submissionId, teamId, leaderboard);
        long pk = Long.parseLong(found.submissionId());
        EvalAiStatus status = evalAi.submission(pk).map(s -> EvalAiStatus.parse(s.status())).orElse(null);
        String target = "submission " + found.submissionId();
        if (status == null) {
            throw refused(operator, "resume", target, "EvalAI knows no submission " + found.submissionId());
        }
        var decision = ActionRules.resume(found.submissionId(), found.record(), status);
        switch (decision.verdict()) {
            case REFUSED -> throw refused(operator, "resume", target, decision.reason());
            case DONE_ALREADY -> {
                log(operator, "resume", target, "already done: " + decision.reason());
                return ActionResult.doneAlready("resume", target, decision.reason(), operator);
            }
            default -> {
            }
        }
        evalAi.resume(pk);
        looks.refreshed();
        String message = "resumed on EvalAI (status resuming); its next run starts when ingest-service takes EvalAI's"
                + " announcement";
        log(operator, "resume", target, message);
        return ActionResult.done("resume", target, message, operator);
    }

    /** Moves the chosen dead letters of {@code queue} (all when {@code ids} is empty) back to it. */
    public ActionResult redrive(String queue, List<String> ids, String operator) {
        String target = "dead-letter queue of " + queue;
        if (!QueuesConfig.ALL.contains(queue) || !queues.queues().containsKey(queue)) {
            throw refused(operator, "redrive", "queue", "no queue '" + SubmissionLookup.printable(queue)
                    + "' is configured (queues: " + String.join(", ", queues.queues().keySet()) + ")");
        }
        var wanted = new LinkedHashSet<>(ids == null ? List.<String>of() : ids);
        int max = config.deadLetters().redriveMax();
        if (wanted.size() > max) {
            throw refused(operator, "redrive", target, wanted.size() + " dead letters named: at most " + max
                    + " are moved back per call");
        }
        var queueDeadLetters = DeadLetterQueue.of(sqs, queues.binding(queue));
        var result = wanted.isEmpty() ? queueDeadLetters.moveBackAll(max, operator)
                : queueDeadLetters.moveBack(wanted, operator);
        String message = result.moved().size() + " message(s) moved back to " + queue
                + (result.notFound().isEmpty() ? "" : "; not in the dead-letter queue (moved already?): "
                        + String.join(", ", result.notFound()))
                + (result.notRemoved().isEmpty() ? "" : "; moved back but still in the dead-letter queue too (moving"
                        + " them again would send a second copy): " + String.join(", ", result.notRemoved()));
        if (result.error() != null) {
            message += "; SQS failed, the rest was not moved: " + result.error();
        }
        log(operator, "redrive", target, message);
        if (result.error() != null && result.moved().isEmpty()) {
            throw new QueueUnavailable("SQS failed: " + result.error() + "; nothing was moved, try again");
        }
        return new ActionResult("redrive", target, result.moved().isEmpty() && !wanted.isEmpty() ? "done-already"
                : "done", message, operator, result.moved(), result.notFound());
    }

    private Optional<Long> challenge(SubmissionLookup.Found found) {
        if (found.record() != null && found.record().challengeId() != null) {
            try {
                return Optional.of(Long.parseLong(found.record().challengeId()));
            } catch (NumberFormatException e) {
                return config.challengePk();
            }
        }
        return config.challengePk();
    }

    private static ActionRefused refused(String operator, String action, String target, String reason) {
        log(operator, action, target, "refused: " + reason);
        return new ActionRefused(reason);
    }

    private static void log(String operator, String action, String target, String what) {
        LOG.infof("operator %s: %s %s: %s", SubmissionLookup.printable(operator), action, target,
                SubmissionLookup.printable(what));
    }
}
