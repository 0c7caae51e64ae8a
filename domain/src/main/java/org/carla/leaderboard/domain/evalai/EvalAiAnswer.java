package org.carla.leaderboard.domain.evalai;

/**
 * What an answer of EvalAI's host API means for the message that asked, the one policy of ingest-service's and
 * results-relay's EvalAI clients: whether asking again can ever help.
 */
public enum EvalAiAnswer {
    /** 2xx, 3xx. */
    OK,
    /**
     * No answer, a timeout, 5xx, 408 or 429: EvalAI is down, overloaded or throttling us. Transient: retried in the
     * client, then the message waits on its queue, never dead-lettered for it.
     */
    UNAVAILABLE,
    /**
     * 401 or 403: EvalAI does not take our host token (expired, revoked, not a host of the challenge). Ours to fix,
     * not the message's fault: not retried in the client, the message waits on its queue until the token is fixed.
     */
    REFUSED,
    /**
     * Any other 4xx (400, 404, 405, 409, 422...): EvalAI refuses this request as it is; asking again the same way will
     * never succeed, so the message is dead-lettered with the reason.
     */
    REJECTED;

    public static EvalAiAnswer of(int httpStatus) {
        if (httpStatus < 400) {
            return OK;
        }
        if (httpStatus >= 500 || httpStatus == 408 || httpStatus == 429) {
            return UNAVAILABLE;
        }
        if (httpStatus == 401 || httpStatus == 403) {
            return REFUSED;
        }
        return REJECTED;
    }

    /** The form used in metric tags and log lines: {@code unavailable}. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
