package org.carla.leaderboard.console.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.domain.evalai.EvalAiAnswer;
import org.carla.leaderboard.domain.evalai.EvalAiBudget;
import org.carla.leaderboard.domain.evalai.EvalAiBudgetConfig;
import org.carla.leaderboard.domain.evalai.EvalAiBudgetSpentException;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * The console's calls to EvalAI, as a challenge host makes them in EvalAI's UI: they change a submission's status
 * (cancel, resume), never its results, which only results-relay sends. An operator waits for the answer, so retries
 * are few and short; a refusal carries EvalAI's own words, and says so when they mean the console's token is not a host
 * of the challenge (EvalAI answers that 400, 401, 403 or, for a cancel, 404 "ParticipantTeam None"). Within the
 * console's share of EvalAI's throttle ({@link EvalAiBudget}, {@code evalai.budget.ops-console} per
 * {@code evalai.budget.per}; a {@code Retry-After} holds every call): a click beyond it waits a few seconds, then is
 * told to try again.
 */
@ApplicationScoped
public class EvalAiHost {

    private static final Logger LOG = Logger.getLogger(EvalAiHost.class);
    /** How long an operator's call waits for the console's next permit. */
    private static final Duration BUDGET_WAIT = Duration.ofSeconds(5);
    /** What EvalAI's update_submission_meta answers a user who is neither a host nor a participant of the challenge. */
    private static final String NO_TEAM = "ParticipantTeam None does not exist";

    private final EvalAiHostApi api;
    private final EvalAiBudget budget;
    private final Duration fresh;
    /** The statuses the page showed, by submission pk, with when they were read. */
    private final Map<Long, Shown> shown = new ConcurrentHashMap<>();

    EvalAiHost(@RestClient EvalAiHostApi api, EvalAiBudgetConfig budgets) {
        this.api = api;
        this.budget = new EvalAiBudget(budgets.opsConsole(), budgets.per(), Clock.systemUTC());
        this.fresh = budgets.per();
    }

    void announce(@Observes StartupEvent started) {
        LOG.infof("EvalAI: at most %s from ops-console (its token's share; EvalAI throttles a user at 60 a minute)",
                budget);
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

    /**
     * The submission's status for the operators' page, read at most once per {@code evalai.budget.per} (a minute) per
     * submission: a page refreshed every few seconds would otherwise spend the console's share of EvalAI's throttle on
     * one submission. Actions read afresh ({@link #submission}).
     */
    public EvalAiStatus status(long submissionPk) {
        Instant now = Instant.now();
        Shown seen = shown.get(submissionPk);
        if (seen != null && seen.at().isAfter(now.minus(fresh))) {
            return seen.status();
        }
        EvalAiStatus status = EvalAiStatus.parse(submission(submissionPk).map(EvalAiSubmission::status).orElse(null));
        shown.values().removeIf(old -> !old.at().isAfter(now.minus(fresh)));
        shown.put(submissionPk, new Shown(status, now));
        return status;
    }

    private record Shown(EvalAiStatus status, Instant at) {
    }

    /** What EvalAI's cancel button sends: {@code PATCH .../update_submission_meta/} {@code {"status": "cancelled"}}. */
    @Retry(maxRetries = 2, delay = 300, retryOn = EvalAiUnavailableException.class)
    @Timeout(10_000)
    public void cancel(long challengePk, long submissionPk) {
        shown.remove(submissionPk);
        call(() -> api.updateSubmissionMeta(challengePk, submissionPk,
                Map.of("status", EvalAiStatus.CANCELLED.value())));
    }

    /** EvalAI's host resume: status {@code resuming}, and EvalAI announces the submission again on its queue. */
    @Retry(maxRetries = 2, delay = 300, retryOn = EvalAiUnavailableException.class)
    @Timeout(10_000)
    public void resume(long submissionPk) {
        shown.remove(submissionPk);
        call(() -> api.resume(submissionPk));
    }

    private <T> T call(Supplier<T> request) {
        try {
            budget.acquire(BUDGET_WAIT);
        } catch (EvalAiBudgetSpentException e) {
            throw new EvalAiUnavailableException(e.getMessage(), e);
        }
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

    private RuntimeException failure(Response response) {
        int status = response.getStatus();
        String body = EvalAiAnswer.body(() -> {
            response.bufferEntity();
            return response.readEntity(String.class);
        });
        String words = EvalAiAnswer.words(body);
        var answer = EvalAiAnswer.of(status, body);
        if (answer == EvalAiAnswer.UNAVAILABLE) {
            if (status == 429) {
                EvalAiBudget.retryAfter(response.getHeaderString("Retry-After")).ifPresent(budget::pause);
            }
            return new EvalAiUnavailableException("EvalAI answered " + status, null);
        }
        if (answer == EvalAiAnswer.REFUSED || status == 404 && words.equals(NO_TEAM)) {
            LOG.errorf("EvalAI refuses the console's token (%d: %s): check the Secret evalai-operator-token and that"
                    + " its user is a host of the challenge", status, words);
            return new EvalAiRefusedException(status, "EvalAI does not take the console's token as a host of the"
                    + " challenge (" + status + ": " + words + "); check the Secret evalai-operator-token");
        }
        return new EvalAiRefusedException(status, "EvalAI refused (" + status + "): " + words);
    }
}
