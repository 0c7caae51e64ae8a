package org.carla.leaderboard.ingest.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;

import org.carla.leaderboard.domain.evalai.EvalAiAnswer;
import org.carla.leaderboard.domain.evalai.EvalAiRefusedException;
import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;
import org.carla.leaderboard.domain.evalai.EvalAiUnavailableException;
import org.carla.leaderboard.ingest.config.EvalAiConfig;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * What the intake asks EvalAI, as results-relay's {@code EvalAiClient} does: one fault-tolerance policy (declared once,
 * on the class) and the one answer policy of the domain's {@link EvalAiAnswer}. An unavailable EvalAI (no answer, too
 * slow, 5xx, 408, 429) is retried here with exponential back-off, then {@link EvalAiUnavailableException}: the message
 * returns to the queue. A refused token (401, 403): {@link EvalAiRefusedException}, not retried here, the message
 * returns to the queue likewise. Any other 4xx can never succeed: {@link SubmissionNotFoundException} for a 404 (the
 * only call is a read of one submission, so the intake names that case), {@link EvalAiRejectedException} otherwise;
 * both are dead-lettered.
 */
@ApplicationScoped
@Timeout(10_000)
@Retry(maxRetries = 4, delay = 200, jitter = 100, maxDuration = 60_000,
        retryOn = { EvalAiUnavailableException.class, TimeoutException.class })
@ExponentialBackoff(factor = 2, maxDelay = 5_000)
public class EvalAiClient {

    private static final Logger LOG = Logger.getLogger(EvalAiClient.class);

    private final EvalAiApi api;
    private final EvalAiConfig config;

    EvalAiClient(@RestClient EvalAiApi api, EvalAiConfig config) {
        this.api = api;
        this.config = config;
    }

    public EvalAiSubmission submission(long submissionPk) {
        try {
            return api.submission(submissionPk, "Bearer " + config.token());
        } catch (WebApplicationException e) {
            int status = e.getResponse().getStatus();
            String message = "EvalAI answered " + status + " for submission " + submissionPk;
            switch (EvalAiAnswer.of(status)) {
                case UNAVAILABLE -> {
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
