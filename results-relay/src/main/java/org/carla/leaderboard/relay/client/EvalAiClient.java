package org.carla.leaderboard.relay.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.domain.evalai.EvalAiAnswer;
import org.carla.leaderboard.domain.evalai.EvalAiBudget;
import org.carla.leaderboard.domain.evalai.EvalAiBudgetConfig;
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
import io.quarkus.runtime.StartupEvent;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * The HTTP calls of the relay's EvalAI outbox (which alone decides when they go), as ingest-service's
 * {@code EvalAiClient} is its own: one fault-tolerance policy for every call (declared once, here on the class), the
 * one answer policy of the domain's {@link EvalAiAnswer}, and this service's share of EvalAI's throttle of the host
 * token ({@link EvalAiBudget}, {@code evalai.budget.results-relay} calls per {@code evalai.budget.per}; every attempt,
 * retries included, takes a permit, and a {@code Retry-After} holds every call). An unavailable EvalAI (no answer,
 * timeout, 5xx, 408, 429) is retried with exponential back-off and ends in {@link EvalAiUnavailableException}: the
 * message waits on its queue. A refused token (401, 403, or a 400 saying the token's user is not a host of the
 * challenge) ends in {@link EvalAiRefusedException}, not retried here, and waits likewise. Any other 4xx ends in
 * {@link EvalAiRejectedException}: the message can never succeed and is dead-lettered.
 *
 * <p>Every call EvalAI received is counted by kind and answer ({@code relay.evalai.calls}). Whether EvalAI answers is
 * messaging's {@link Dependencies#EVALAI}; whether it takes the token is {@link Dependencies#EVALAI_TOKEN}, a
 * configuration error an operator fixes (each is {@code leaderboard_dependency_up}, a log line when it starts and ends,
 * {@code /q/health/well}), never a readiness failure: an answer reports them up here, and the failure that reaches a
 * caller once the retries are spent is reported by that caller ({@link #noteFailure}).
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
    public static final String CONFIRM = "confirm";
    public static final String CANCELLED_LIST = "cancelled-list";
    /** How long one call waits for this service's next permit before it is not made. */
    private static final Duration BUDGET_WAIT = Duration.ofSeconds(10);

    private final EvalAiApi api;
    private final EvalAiConfig config;
    private final MeterRegistry registry;
    private final Dependency state;
    private final Dependency token;
    private final EvalAiBudget budget;

    EvalAiClient(@RestClient EvalAiApi api, EvalAiConfig config, EvalAiBudgetConfig budgets, Clock clock,
            MeterRegistry registry, Dependencies dependencies) {
        this.api = api;
        this.config = config;
        this.registry = registry;
        this.state = dependencies.get(Dependencies.EVALAI);
        this.token = dependencies.get(Dependencies.EVALAI_TOKEN);
        this.budget = new EvalAiBudget(budgets.resultsRelay(), budgets.per(), clock);
    }

    void announce(@Observes StartupEvent started) {
        LOG.infof("EvalAI: at most %s from results-relay (the host token's share; EvalAI throttles a user at 60 a"
                + " minute); a token EvalAI refuses or that is not a host of a challenge holds that work and turns"
                + " %s down in /q/health/well until it is fixed", budget, Dependencies.EVALAI_TOKEN);
    }

    /**
     * A call's failure as its caller saw it, the retries spent: EvalAI unavailable or the call cut by its timeout or
     * the open circuit breaker mark EvalAI down; our token refused marks {@link Dependencies#EVALAI_TOKEN} down;
     * anything else (a rejection, the budget, another dependency) says nothing of either.
     */
    public void noteFailure(RuntimeException failure) {
        if (failure instanceof EvalAiRefusedException) {
            token.failed(failure.getMessage());
        } else if (failure instanceof EvalAiUnavailableException || failure instanceof FaultToleranceException) {
            state.failed(failure);
        }
    }

    /** How many calls could go now within this service's budget. */
    public int permits() {
        return budget.available();
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

    /** The submission's status as EvalAI shows it after its final update: one read, counted as a confirmation. */
    public EvalAiStatus shownAfterFinal(SubmissionIdentity submission) {
        var found = call(CONFIRM, submission.submissionPk(), () -> api.submission(submission.submissionPk(),
                bearer()));
        return EvalAiStatus.parse(found == null ? null : found.status());
    }

    /**
     * The pks of the challenge's submissions EvalAI shows cancelled among those submitted within {@code window}: one
     * call ({@code GET /api/jobs/challenge/{pk}/submission/}, unpaginated) for the runs of the challenge the window
     * covers.
     */
    public Set<Long> cancelledIn(long challengePk, ListWindow window) {
        var found = call(CANCELLED_LIST, challengePk, () -> api.submissions(challengePk,
                EvalAiStatus.CANCELLED.value(), window.after().map(Instant::toString).orElse(null),
                window.before().map(Instant::toString).orElse(null), bearer()));
        return found == null ? Set.of() : found.stream().filter(s -> s.id() != null)
                .filter(s -> EvalAiStatus.parse(s.status()) == EvalAiStatus.CANCELLED)
                .map(EvalAiSubmission::id).collect(Collectors.toUnmodifiableSet());
    }

    /** The host token, never logged. */
    private String bearer() {
        return "Bearer " + config.token();
    }

    private static EvaluationUpdate update(SubmissionIdentity submission, String status, Evaluation evaluation) {
        return new EvaluationUpdate(submission.submissionPk(), submission.phasePk(), status, evaluation.result(),
                evaluation.stdout(), evaluation.stderr(), evaluation.metadata());
    }

    /**
     * One HTTP call within the budget, counted, its answer classified; {@code about} is the submission (or challenge)
     * asked about.
     */
    private <T> T call(String kind, long about, Supplier<T> request) {
        budget.acquire(BUDGET_WAIT);
        T answer;
        try {
            answer = request.get();
        } catch (WebApplicationException e) {
            throw failure(kind, about, e.getResponse());
        } catch (ProcessingException e) {
            count(kind, EvalAiAnswer.UNAVAILABLE);
            LOG.debugf("EvalAI did not answer the %s request about %d: %s", kind, about, e.getMessage());
            throw new EvalAiUnavailableException(0, "EvalAI did not answer: " + e.getMessage(), e);
        }
        if (answer instanceof Response response) {
            try (response) {
                if (response.getStatus() >= 400) {
                    throw failure(kind, about, response);
                }
            }
        }
        count(kind, EvalAiAnswer.OK);
        state.answered();
        token.answered();
        return answer;
    }

    private RuntimeException failure(String kind, long about, Response response) {
        int status = response.getStatus();
        String body = EvalAiAnswer.body(() -> {
            response.bufferEntity();
            return response.readEntity(String.class);
        });
        var answer = EvalAiAnswer.of(status, body);
        count(kind, answer);
        String message = "EvalAI answered " + status + " to the " + kind + " request about " + about;
        return switch (answer) {
            case UNAVAILABLE -> {
                if (status == 429) {
                    EvalAiBudget.retryAfter(response.getHeaderString("Retry-After")).ifPresent(budget::pause);
                }
                LOG.debugf("%s", message);
                yield new EvalAiUnavailableException(status, message, null);
            }
            case REFUSED -> {
                state.answered();
                LOG.errorf("%s: %s; EvalAI does not take the host token for this (check the Secret evalai-token and"
                        + " that its user is a host of the challenge)", message, EvalAiAnswer.words(body));
                yield new EvalAiRefusedException(status, message + ": " + EvalAiAnswer.words(body));
            }
            default -> {
                state.answered();
                yield new EvalAiRejectedException(status, message + ": " + EvalAiAnswer.words(body));
            }
        };
    }

    private void count(String kind, EvalAiAnswer answer) {
        registry.counter("relay.evalai.calls", "kind", kind, "answer", answer.tag()).increment();
    }
}
