package org.carla.leaderboard.ingest.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;

import org.carla.leaderboard.ingest.config.EvalAiConfig;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.smallrye.faulttolerance.api.ExponentialBackoff;

/**
 * What the intake asks EvalAI. Passing failures (5xx, 429, no answer, too slow) are retried here with exponential
 * back-off; when those retries are used up the caller gets {@link EvalAiUnavailableException} and the message returns
 * to the queue. A 404 is final: {@link SubmissionNotFoundException}.
 */
@ApplicationScoped
public class EvalAiClient {

    private static final Logger LOG = Logger.getLogger(EvalAiClient.class);

    private final EvalAiApi api;
    private final EvalAiConfig config;

    EvalAiClient(@RestClient EvalAiApi api, EvalAiConfig config) {
        this.api = api;
        this.config = config;
    }

    @Timeout(10_000)
    @Retry(maxRetries = 4, delay = 200, jitter = 100, maxDuration = 60_000,
            retryOn = { EvalAiUnavailableException.class, TimeoutException.class })
    @ExponentialBackoff(factor = 2, maxDelay = 5_000)
    public EvalAiSubmission submission(long submissionPk) {
        try {
            return api.submission(submissionPk, "Bearer " + config.token());
        } catch (WebApplicationException e) {
            int status = e.getResponse().getStatus();
            if (status == 404) {
                throw new SubmissionNotFoundException(submissionPk);
            }
            if (status >= 500 || status == 429) {
                LOG.warnf("EvalAI answered %d for submission %d", status, submissionPk);
                throw new EvalAiUnavailableException("EvalAI answered " + status + " for submission " + submissionPk,
                        e);
            }
            throw new EvalAiRefusedException(status, "EvalAI refused to show submission " + submissionPk + " ("
                    + status + "); check the host token and the challenge's hosts");
        } catch (ProcessingException e) {
            LOG.warnf("EvalAI did not answer for submission %d: %s", submissionPk, e.getMessage());
            throw new EvalAiUnavailableException("EvalAI did not answer for submission " + submissionPk, e);
        }
    }
}
