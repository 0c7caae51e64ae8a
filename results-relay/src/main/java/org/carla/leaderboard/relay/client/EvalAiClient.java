package org.carla.leaderboard.relay.client;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.domain.evalai.EvalAiAnswer;
import org.carla.leaderboard.domain.evalai.EvalAiRefusedException;
import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;
import org.carla.leaderboard.domain.evalai.EvalAiUnavailableException;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.messaging.Dependencies;
import org.carla.leaderboard.messaging.Dependency;
import org.carla.leaderboard.relay.config.EvalAiConfig;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.FaultToleranceException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * The relay's only way to EvalAI, as ingest-service's {@code EvalAiClient} is its own: one fault-tolerance policy for
 * every call (declared once, here on the class), and the one answer policy of the domain's {@link EvalAiAnswer}. An
 * unavailable EvalAI (no answer, timeout, 5xx, 408, 429) is retried with exponential back-off and ends in
 * {@link EvalAiUnavailableException}: the message waits on its queue. A refused token (401, 403) ends in
 * {@link EvalAiRefusedException}, not retried here, and waits likewise. Any other 4xx ends in
 * {@link EvalAiRejectedException}: the message can never succeed and is dead-lettered.
 *
 * <p>Every call EvalAI received is counted by kind and answer ({@code relay.evalai.calls}). Whether EvalAI answers is
 * messaging's {@link Dependencies#EVALAI} ({@code leaderboard_dependency_up}, a log line when an outage starts and
 * ends, {@code /q/health/well}), never a readiness failure: an answer reports it up here, and the failure that
 * reaches a caller once the retries are spent is reported down by that caller ({@link #noteFailure}).
 */
@ApplicationScoped
@Retry(maxRetries = 4, delay = 500, jitter = 200, maxDuration = 60_000,
        retryOn = { EvalAiUnavailableException.class, TimeoutException.class })
@ExponentialBackoff(factor = 2, maxDelay = 8, maxDelayUnit = ChronoUnit.SECONDS)
@CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.8, delay = 10_000,
        failOn = { EvalAiUnavailableException.class, TimeoutException.class })
@Timeout(30_000)
public class EvalAiClient {

    private static final Logger LOG = Logger.getLogger(EvalAiClient.class);

    public static final String RUNNING = "running";
    public static final String PARTIAL = "partial";
    public static final String FINAL = "final";
    public static final String STATUS = "status";
    public static final String CONFIRM = "confirm";
    public static final String CANCELLED_LIST = "cancelled-list";

    private final EvalAiApi api;
    private final EvalAiConfig config;
    private final MeterRegistry registry;
    private final Dependency state;

    EvalAiClient(@RestClient EvalAiApi api, EvalAiConfig config, MeterRegistry registry, Dependencies dependencies) {
        this.api = api;
        this.config = config;
        this.registry = registry;
        this.state = dependencies.get(Dependencies.EVALAI);
    }

    /**
     * A call's failure as its caller saw it, the retries spent: EvalAI unavailable, our token refused or the call cut
     * by its timeout or the open circuit breaker mark EvalAI down; anything else (a rejection, another dependency)
     * says nothing of EvalAI.
     */
    public void noteFailure(RuntimeException failure) {
        if (failure instanceof EvalAiUnavailableException || failure instanceof EvalAiRefusedException
                || failure instanceof FaultToleranceException) {
            state.failed(failure);
        }
    }

    /** {@code PATCH update_submission}: the submission runs, in this Job. */
    public void markRunning(SubmissionIdentity submission, String jobName) {
        call(RUNNING, submission.submissionPk(), () -> api.markRunning(submission.challengePk(),
                new RunningUpdate(submission.submissionPk(), EvalAiStatus.RUNNING.value(), jobName), bearer()));
    }

    /** {@code PUT update_partially_evaluated_submission} with {@code PARTIALLY_EVALUATED}. */
    public void sendPartial(SubmissionIdentity submission, Evaluation evaluation) {
        call(PARTIAL, submission.submissionPk(), () -> api.updatePartiallyEvaluated(submission.challengePk(),
                update(submission, "PARTIALLY_EVALUATED", evaluation), bearer()));
    }

    /** {@code PUT update_submission} with the final status. */
    public void sendFinal(SubmissionIdentity submission, SubmissionStatus status, Evaluation evaluation) {
        call(FINAL, submission.submissionPk(), () -> api.updateSubmission(submission.challengePk(),
                update(submission, status.evalAiValue(), evaluation), bearer()));
    }

    /** The submission's status as EvalAI shows it now. */
    public EvalAiStatus status(SubmissionIdentity submission) {
        return read(STATUS, submission);
    }

    /** The submission's status as EvalAI shows it after its final update: one read, counted as a confirmation. */
    public EvalAiStatus shownAfterFinal(SubmissionIdentity submission) {
        return read(CONFIRM, submission);
    }

    /** One read of the submission's status, counted as {@code kind}. */
    private EvalAiStatus read(String kind, SubmissionIdentity submission) {
        var found = call(kind, submission.submissionPk(), () -> api.submission(submission.submissionPk(), bearer()));
        return EvalAiStatus.parse(found == null ? null : found.status());
    }

    /**
     * Re-reads the submission until EvalAI shows the final status just sent: 5 reads, 1 s apart then doubling (the
     * same retry tools as every call, with a policy of its own).
     *
     * @throws EvalAiNotShownException when EvalAI still shows another status after the last read
     */
    @Retry(maxRetries = 4, delay = 1_000, jitter = 0, maxDuration = 120_000,
            retryOn = { EvalAiNotShownException.class, EvalAiUnavailableException.class, TimeoutException.class })
    @ExponentialBackoff(factor = 2, maxDelay = 16, maxDelayUnit = ChronoUnit.SECONDS)
    public void awaitShown(SubmissionIdentity submission, SubmissionStatus status) {
        var shown = shownAfterFinal(submission);
        if (shown != EvalAiStatus.valueOf(status.name())) {
            throw new EvalAiNotShownException("EvalAI still shows submission " + submission.submissionPk() + " "
                    + shown.value() + ", expected " + status.evalAiValue());
        }
    }

    /**
     * The pks of the challenge's submissions EvalAI shows cancelled that were submitted after {@code since}: one call
     * for all the running submissions of a challenge ({@code GET /api/jobs/challenge/{pk}/submission/}).
     */
    public Set<Long> cancelledSince(long challengePk, Instant since) {
        // EvalAI's filter is strict and reads seconds: one second earlier keeps a submission of that very second.
        String after = since.truncatedTo(ChronoUnit.SECONDS).minusSeconds(1).toString();
        var found = call(CANCELLED_LIST, challengePk, () -> api.submissions(challengePk,
                EvalAiStatus.CANCELLED.value(), after, bearer()));
        return found == null ? Set.of() : found.stream().filter(s -> s.id() != null)
                .filter(s -> EvalAiStatus.parse(s.status()) == EvalAiStatus.CANCELLED)
                .map(EvalAiSubmission::id).collect(Collectors.toUnmodifiableSet());
    }

    /** For readiness: EvalAI answers at all (no retries; a 4xx still proves it is up). */
    @Retry(maxRetries = 0)
    @Timeout(5_000)
    public boolean reachable() {
        try (Response response = api.root()) {
            return response.getStatus() < 500;
        } catch (WebApplicationException e) {
            return e.getResponse().getStatus() < 500;
        } catch (ProcessingException e) {
            return false;
        }
    }

    /** The host token, never logged. */
    private String bearer() {
        return "Bearer " + config.token();
    }

    private static EvaluationUpdate update(SubmissionIdentity submission, String status, Evaluation evaluation) {
        return new EvaluationUpdate(submission.submissionPk(), submission.phasePk(), status, evaluation.result(),
                evaluation.stdout(), evaluation.stderr(), evaluation.metadata());
    }

    /** One HTTP call, counted, its answer classified; {@code about} is the submission (or challenge) asked about. */
    private <T> T call(String kind, long about, Supplier<T> request) {
        T answer;
        try {
            answer = request.get();
        } catch (WebApplicationException e) {
            throw failure(kind, about, e.getResponse().getStatus(), e);
        } catch (ProcessingException e) {
            count(kind, EvalAiAnswer.UNAVAILABLE);
            LOG.debugf("EvalAI did not answer the %s request about %d: %s", kind, about, e.getMessage());
            throw new EvalAiUnavailableException(0, "EvalAI did not answer: " + e.getMessage(), e);
        }
        if (answer instanceof Response response) {
            response.close();
            if (response.getStatus() >= 400) {
                throw failure(kind, about, response.getStatus(), null);
            }
        }
        count(kind, EvalAiAnswer.OK);
        state.answered();
        return answer;
    }

    private RuntimeException failure(String kind, long about, int status, Throwable cause) {
        var answer = EvalAiAnswer.of(status);
        count(kind, answer);
        String message = "EvalAI answered " + status + " to the " + kind + " request about " + about;
        return switch (answer) {
            case UNAVAILABLE -> {
                LOG.debugf("%s", message);
                yield new EvalAiUnavailableException(status, message, cause);
            }
            case REFUSED -> {
                LOG.errorf("%s: the host token is not accepted (check the Secret evalai-token)", message);
                yield new EvalAiRefusedException(status, message + ": the host token is not accepted");
            }
            default -> {
                state.answered();
                yield new EvalAiRejectedException(status, message);
            }
        };
    }

    private void count(String kind, EvalAiAnswer answer) {
        registry.counter("relay.evalai.calls", "kind", kind, "answer", answer.tag()).increment();
    }
}
