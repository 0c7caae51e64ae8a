package org.carla.leaderboard.ingest.client;

import java.time.Clock;
import java.time.Duration;

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
import org.carla.leaderboard.ingest.config.EvalAiConfig;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * What the intake asks EvalAI, as results-relay's {@code EvalAiClient} does: one fault-tolerance policy (declared once,
 * on the class), the one answer policy of the domain's {@link EvalAiAnswer}, and this service's share of EvalAI's
 * throttle of the host token ({@link EvalAiBudget}: {@code evalai.budget.ingest-service} calls per
 * {@code evalai.budget.per}, every attempt included; a burst of announcements waits for its turns, and a
 * {@code Retry-After} holds every call). An unavailable EvalAI (no answer, too slow, 5xx, 408, 429) is retried here
 * with exponential back-off, then {@link EvalAiUnavailableException}: the message returns to the queue. A refused
 * token (401, 403; a read by a user who is not a host of the challenge is a 401): {@link EvalAiRefusedException}, not
 * retried here, the message returns to the queue likewise. Any other 4xx can never succeed:
 * {@link SubmissionNotFoundException} for a 404 (the only call is a read of one submission, so the intake names that
 * case), {@link EvalAiRejectedException} otherwise; both are dead-lettered.
 */
@ApplicationScoped
@Timeout(10_000)
@Retry(maxRetries = 4, delay = 200, jitter = 100, maxDuration = 60_000,
        retryOn = { EvalAiUnavailableException.class, TimeoutException.class })
@ExponentialBackoff(factor = 2, maxDelay = 5_000)
public class EvalAiClient {

    private static final Logger LOG = Logger.getLogger(EvalAiClient.class);
    /** How long one read waits for this service's next permit (within the call's timeout) before it is not made. */
    private static final Duration BUDGET_WAIT = Duration.ofSeconds(8);

    private final EvalAiApi api;
    private final EvalAiConfig config;
    private final EvalAiBudget budget;

    EvalAiClient(@RestClient EvalAiApi api, EvalAiConfig config, EvalAiBudgetConfig budgets) {
        this.api = api;
        this.config = config;
        this.budget = new EvalAiBudget(budgets.ingestService(), budgets.per(), Clock.systemUTC());
    }

    void announce(@Observes StartupEvent started) {
        LOG.infof("EvalAI: at most %s from ingest-service (the host token's share; EvalAI throttles a user at 60 a"
                + " minute); a token EvalAI refuses holds the announcements and turns evalai-token down in"
                + " /q/health/well until it is fixed", budget);
    }

    public EvalAiSubmission submission(long submissionPk) {
        budget.acquire(BUDGET_WAIT);
        try {
            return api.submission(submissionPk, "Bearer " + config.token());
        } catch (WebApplicationException e) {
            Response response = e.getResponse();
            int status = response.getStatus();
            String body = EvalAiAnswer.body(() -> {
                response.bufferEntity();
                return response.readEntity(String.class);
            });
            String message = "EvalAI answered " + status + " for submission " + submissionPk + ": "
                    + EvalAiAnswer.words(body);
            switch (EvalAiAnswer.of(status, body)) {
                case UNAVAILABLE -> {
                    if (status == 429) {
                        EvalAiBudget.retryAfter(response.getHeaderString("Retry-After")).ifPresent(budget::pause);
                    }
                    LOG.warnf("%s", message);
                    throw new EvalAiUnavailableException(status, message, e);
                }
                case REFUSED -> throw new EvalAiRefusedException(status, message
                        + "; check the host token and the challenge's hosts");
                default -> {
                    if (status == 404) {
                        throw new SubmissionNotFoundException(submissionPk);
                    }
                    throw new EvalAiRejectedException(status, message);
                }
            }
        } catch (ProcessingException e) {
            LOG.warnf("EvalAI did not answer for submission %d: %s", submissionPk, e.getMessage());
            throw new EvalAiUnavailableException(0, "EvalAI did not answer for submission " + submissionPk, e);
        }
    }
}
