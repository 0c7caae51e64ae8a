package org.carla.leaderboard.console.client;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The console's calls to EvalAI, as a challenge host makes them in EvalAI's UI: they change a submission's status
 * (cancel, resume), never its results, which only results-relay sends. An operator waits for the answer, so retries
 * are few and short; a refusal carries EvalAI's own words.
 */
@ApplicationScoped
public class EvalAiHost {

    private final EvalAiHostApi api;

    EvalAiHost(@RestClient EvalAiHostApi api) {
        this.api = api;
    }

    /** The submission as EvalAI shows it; empty when EvalAI does not know it. */
    @Retry(maxRetries = 2, delay = 300, retryOn = EvalAiUnavailableException.class)
    @Timeout(10_000)
    public Optional<EvalAiSubmission> submission(long submissionPk) {
        try {
            return Optional.ofNullable(call(() -> api.submission(submissionPk)));
        } catch (EvalAiRefusedException e) {
            if (e.status() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    public EvalAiStatus status(long submissionPk) {
        return EvalAiStatus.parse(submission(submissionPk).map(EvalAiSubmission::status).orElse(null));
    }

    /** What EvalAI's cancel button sends: {@code PATCH .../update_submission_meta/} {@code {"status": "cancelled"}}. */
    @Retry(maxRetries = 2, delay = 300, retryOn = EvalAiUnavailableException.class)
    @Timeout(10_000)
    public void cancel(long challengePk, long submissionPk) {
        call(() -> api.updateSubmissionMeta(challengePk, submissionPk,
                Map.of("status", EvalAiStatus.CANCELLED.value())));
    }

    /** EvalAI's host resume: status {@code resuming}, and EvalAI announces the submission again on its queue. */
    @Retry(maxRetries = 2, delay = 300, retryOn = EvalAiUnavailableException.class)
    @Timeout(10_000)
    public void resume(long submissionPk) {
        call(() -> api.resume(submissionPk));
    }

    private static <T> T call(Supplier<T> request) {
        T answer;
        try {
            answer = request.get();
        } catch (WebApplicationException e) {
            throw failure(e.getResponse());
        } catch (ProcessingException e) {
            throw new EvalAiUnavailableException("EvalAI unreachable: " + e.getMessage(), e);
        }
        if (answer instanceof Response response) {
            try (response) {
                if (response.getStatus() >= 400) {
                    throw failure(response);
                }
            }
        }
        return answer;
    }

    private static RuntimeException failure(Response response) {
        int status = response.getStatus();
        if (status >= 500 || status == 429 || status == 408) {
            return new EvalAiUnavailableException("EvalAI answered " + status, null);
        }
        return new EvalAiRefusedException(status, "EvalAI refused (" + status + "): " + words(response));
    }

    /** EvalAI's {@code {"error": "..."}} or {@code {"detail": "..."}}, else the body's start. */
    private static String words(Response response) {
        try {
            response.bufferEntity();
            JsonNode body = response.readEntity(JsonNode.class);
            for (String field : new String[] { "error", "detail" }) {
                if (body != null && body.hasNonNull(field)) {
                    return body.get(field).asText();
                }
            }
            return body == null ? "" : body.toString();
        } catch (RuntimeException e) {
            return "(no readable answer)";
        }
    }
}
