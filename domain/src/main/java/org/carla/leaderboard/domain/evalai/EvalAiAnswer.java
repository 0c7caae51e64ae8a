package org.carla.leaderboard.domain.evalai;

import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.event.EventCodec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

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
     * EvalAI does not take our host token for this: 401 or 403 (expired, revoked; a submission's read by a user who is
     * not a host of its challenge is a 401), or a 400 whose error says the caller is not authorized (EvalAI's host-only
     * views, {@code update_submission}, {@code update_partially_evaluated_submission},
     * {@code get_submissions_for_challenge}, answer a valid user who is not a host of the challenge so). A
     * configuration error, ours to fix, not the message's fault: not retried in the client, the message waits on its
     * queue until the token is fixed, and the service says so loudly.
     */
    REFUSED,
    /**
     * Any other 4xx (400, 404, 405, 409, 422...): EvalAI refuses this request as it is; asking again the same way will
     * never succeed, so the message is dead-lettered with the reason.
     */
    REJECTED;

    /**
     * The words EvalAI's views put in a 400 to a user who is not a host ("Sorry, you are not authorized to make this
     * request!"); none of their 400s that reject a request as it is (a status, a result, a split, a metric) holds them.
     */
    private static final Pattern NOT_AUTHORIZED = Pattern.compile("\\bnot authorized\\b", Pattern.CASE_INSENSITIVE);

    /** By the status alone (a 400 is {@link #REJECTED}): where the answer's body is not known. */
    public static EvalAiAnswer of(int httpStatus) {
        return of(httpStatus, null);
    }

    /** By the status and, for a 400, EvalAI's {@code {"error": ...}}: a non-host told from a rejection. */
    public static EvalAiAnswer of(int httpStatus, String body) {
        if (httpStatus < 400) {
            return OK;
        }
        if (httpStatus >= 500 || httpStatus == 408 || httpStatus == 429) {
            return UNAVAILABLE;
        }
        if (httpStatus == 401 || httpStatus == 403 || httpStatus == 400 && notAuthorized(body)) {
            return REFUSED;
        }
        return REJECTED;
    }

    /** An answer's body as its reader gives it; empty when it cannot be read (then its status alone tells). */
    public static String body(Supplier<String> reader) {
        try {
            String body = reader.get();
            return body == null ? "" : body;
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** EvalAI's words in an answer's body: its {@code error} or {@code detail}, else the body's start, one line. */
    public static String words(String body) {
        if (body == null || body.isBlank()) {
            return "(no body)";
        }
        try {
            JsonNode node = EventCodec.mapper().readTree(body);
            for (String field : new String[] { "error", "detail" }) {
                if (node != null && node.path(field).isTextual()) {
                    return node.path(field).asText();
                }
            }
        } catch (JsonProcessingException e) {
            // not JSON: a proxy's page
        }
        String line = body.strip().replaceAll("\\s+", " ");
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }

    private static boolean notAuthorized(String body) {
        if (body == null || body.isBlank()) {
            return false;
        }
        try {
            JsonNode error = EventCodec.mapper().readTree(body).path("error");
            return error.isTextual() && NOT_AUTHORIZED.matcher(error.asText()).find();
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    /** The form used in metric tags and log lines: {@code unavailable}. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
