package org.carla.leaderboard.relay.client;

import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * The relay's only way to EvalAI. Passing failures (no answer, 5xx, 429) are retried with exponential back-off and
 * end in {@link EvalAiUnavailableException}, which returns the event to the queue; a refusal (other 4xx) ends in
 * {@link EvalAiRejectedException}, which dead-letters it. Counts the
 * updates that succeeded ({@code relay.evalai.updates}), the status reads ({@code relay.evalai.reads}) and failed ({@code relay.evalai.failures}) by kind; retries
 * are counted by SmallRye Fault Tolerance ({@code ft.retry.retries.total}).
 */
@ApplicationScoped
public class EvalAi {

    private static final Logger LOG = Logger.getLogger(EvalAi.class);

    public static final String RUNNING = "running";
    public static final String PARTIAL = "partial";
    public static final String FINAL = "final";
    public static final String STATUS = "status";

    private final EvalAiApi api;
    private final MeterRegistry registry;

    EvalAi(@RestClient EvalAiApi api, MeterRegistry registry) {
        this.api = api;
        this.registry = registry;
    }

    @Retry(maxRetries = 4, delay = 500, jitter = 200, maxDuration = 60_000, retryOn = EvalAiUnavailableException.class)
    @ExponentialBackoff(factor = 2, maxDelay = 8, maxDelayUnit = ChronoUnit.SECONDS)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.8, delay = 10_000,
            failOn = EvalAiUnavailableException.class)
    @Timeout(15_000)
    public void markRunning(SubmissionIdentity submission, String jobName) {
        call(RUNNING, submission, () -> api.markRunning(submission.challengePk(),
                new RunningUpdate(submission.submissionPk(), EvalAiStatus.RUNNING.value(), jobName)));
    }

    @Retry(maxRetries = 4, delay = 500, jitter = 200, maxDuration = 60_000, retryOn = EvalAiUnavailableException.class)
    @ExponentialBackoff(factor = 2, maxDelay = 8, maxDelayUnit = ChronoUnit.SECONDS)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.8, delay = 10_000,
            failOn = EvalAiUnavailableException.class)
    @Timeout(30_000)
    public void sendPartial(SubmissionIdentity submission, Evaluation evaluation) {
        call(PARTIAL, submission, () -> api.updatePartiallyEvaluated(submission.challengePk(),
                update(submission, "PARTIALLY_EVALUATED", evaluation)));
    }

    @Retry(maxRetries = 4, delay = 500, jitter = 200, maxDuration = 60_000, retryOn = EvalAiUnavailableException.class)
    @ExponentialBackoff(factor = 2, maxDelay = 8, maxDelayUnit = ChronoUnit.SECONDS)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.8, delay = 10_000,
            failOn = EvalAiUnavailableException.class)
    @Timeout(30_000)
    public void sendFinal(SubmissionIdentity submission, SubmissionStatus status, Evaluation evaluation) {
        call(FINAL, submission, () -> api.updateSubmission(submission.challengePk(),
                update(submission, status.evalAiValue(), evaluation)));
    }

    /** The submission's status as EvalAI shows it now. */
    @Retry(maxRetries = 4, delay = 500, jitter = 200, maxDuration = 60_000, retryOn = EvalAiUnavailableException.class)
    @ExponentialBackoff(factor = 2, maxDelay = 8, maxDelayUnit = ChronoUnit.SECONDS)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.8, delay = 10_000,
            failOn = EvalAiUnavailableException.class)
    @Timeout(15_000)
    public EvalAiStatus status(SubmissionIdentity submission) {
        var found = call(STATUS, submission, () -> api.submission(submission.submissionPk()));
        return EvalAiStatus.parse(found == null ? null : found.status());
    }

    /** For readiness: EvalAI answers at all (no retries; a 4xx still proves it is up). */
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

    private static EvaluationUpdate update(SubmissionIdentity submission, String status, Evaluation evaluation) {
        return new EvaluationUpdate(submission.submissionPk(), submission.phasePk(), status, evaluation.result(),
                evaluation.stdout(), evaluation.stderr(), evaluation.metadata());
    }

    private <T> T call(String kind, SubmissionIdentity submission, Supplier<T> request) {
        T answer;
        try {
            answer = request.get();
        } catch (WebApplicationException e) {
            throw failure(kind, submission, e);
        } catch (ProcessingException e) {
            countFailure(kind, "unavailable");
            LOG.warnf("EvalAI unreachable for the %s request of submission %d: %s", kind, submission.submissionPk(),
                    e.getMessage());
            throw new EvalAiUnavailableException("EvalAI unreachable: " + e.getMessage(), e);
        }
        if (answer instanceof Response response) {
            response.close();
            if (response.getStatus() >= 400) {
                throw failure(kind, submission, new WebApplicationException(response));
            }
        }
        registry.counter(STATUS.equals(kind) ? "relay.evalai.reads" : "relay.evalai.updates", "kind", kind).increment();
        return answer;
    }

    private RuntimeException failure(String kind, SubmissionIdentity submission, WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status >= 500 || status == 429 || status == 408) {
            countFailure(kind, "unavailable");
            LOG.warnf("EvalAI answered %d to the %s request of submission %d", status, kind, submission.submissionPk());
            return new EvalAiUnavailableException("EvalAI answered " + status + " to the " + kind + " request", e);
        }
        countFailure(kind, "rejected");
        return new EvalAiRejectedException(status, "EvalAI refused the " + kind + " request of submission "
                + submission.submissionPk() + " with " + status);
    }

    private void countFailure(String kind, String reason) {
        registry.counter("relay.evalai.failures", "kind", kind, "reason", reason).increment();
    }
}
