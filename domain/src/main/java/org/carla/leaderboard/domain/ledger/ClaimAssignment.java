package org.carla.leaderboard.domain.ledger;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecordCheck;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What logcopy tells agent-i in {@code claims/agent-<i>.json} ({@code LogsLayout.claimFile}): its claim number
 * {@code n} (from 1, one more per claim the pod gives the pair) and either the entry to drive — the evaluator runs
 * {@code --routes-subset=<route_id> --repetitions=1 --checkpoint=agent/agent<i>/claim-<n>-<tag>.json} — or that nothing is
 * left for the pair ({@code none}, with why the run cannot finish when an entry gave up).
 *
 * <pre>{"claim": 3, "crashes": {"agent": 0, "simulator": 1}, "entry": "27#1", "tag": "1a2b3c4d"}
 * {"claim": 4, "crashes": {"agent": 0, "simulator": 1}, "none": true, "reason": ""}</pre>
 */
public record ClaimAssignment(int number, Optional<EntryKey> entry, String tag, Crashes crashes, String reason) {

    /**
     * The pair's crash files when logcopy gave the claim: a claim is the attempt's only while they are still all there
     * is. After a crash logcopy releases the claim and gives a new one; until then the restarted agent waits.
     */
    public record Crashes(int agent, int simulator) {

        public static final Crashes NONE = new Crashes(0, 0);

        public Crashes {
            if (agent < 0 || simulator < 0) {
                throw new IllegalArgumentException("crash counts are 0 or more, were " + agent + " and " + simulator);
            }
        }
    }

    /** The largest claim file read: a few dozen bytes are written. */
    public static final int MAX_BYTES = 4096;

    public ClaimAssignment {
        if (number < 1) {
            throw new IllegalArgumentException("claims are numbered from 1, was " + number);
        }
        entry = entry == null ? Optional.empty() : entry;
        tag = tag == null ? "" : tag;
        crashes = crashes == null ? Crashes.NONE : crashes;
        if (entry.isPresent() && !tag.matches("[0-9a-f]{8}")) {
            throw new IllegalArgumentException("claim " + number + "'s tag is 8 hex digits, was "
                    + RouteRecordCheck.printable(tag));
        }
        reason = reason == null ? "" : RouteRecordCheck.printable(reason);
    }

    /** @param tag 8 hex digits of the claim's token: its checkpoint's name ({@code LogsLayout.claimCheckpoint}) */
    public static ClaimAssignment drive(int number, EntryKey entry, String tag, Crashes crashes) {
        return new ClaimAssignment(number, Optional.of(entry), tag, crashes, "");
    }

    public static ClaimAssignment none(int number, Crashes crashes, String reason) {
        return new ClaimAssignment(number, Optional.empty(), "", crashes, reason);
    }

    public boolean none() {
        return entry.isEmpty();
    }

    public String json() {
        var fields = new LinkedHashMap<String, Object>();
        fields.put("claim", number);
        fields.put("crashes", Map.of("agent", crashes.agent(), "simulator", crashes.simulator()));
        entry.ifPresentOrElse(key -> {
            fields.put("entry", key.text());
            fields.put("tag", tag);
        }, () -> {
            fields.put("none", true);
            fields.put("reason", reason);
        });
        try {
            return ResultsJson.mapper().writeValueAsString(fields);
        } catch (JacksonException e) {
            throw new IllegalStateException("a claim is plain JSON", e);
        }
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static ClaimAssignment parse(String text) {
        JsonNode node;
        try {
            node = ResultsJson.mapper().readTree(text);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("a claim file is JSON: " + e.getOriginalMessage(), e);
        }
        if (node == null || !node.isObject() || !node.path("claim").canConvertToInt() || !node.path("claim").isIntegralNumber()) {
            throw new IllegalArgumentException("a claim file holds {\"claim\": <n>, ...}");
        }
        int number = node.get("claim").intValue();
        JsonNode counts = node.path("crashes");
        if (!counts.path("agent").isIntegralNumber() || !counts.path("simulator").isIntegralNumber()) {
            throw new IllegalArgumentException("claim " + number + " holds no crash counts");
        }
        var crashes = new Crashes(counts.get("agent").intValue(), counts.get("simulator").intValue());
        if (node.path("none").asBoolean(false)) {
            return none(number, crashes, node.path("reason").asText(""));
        }
        if (!node.path("entry").isTextual()) {
            throw new IllegalArgumentException("claim " + number + " names no entry and is not none");
        }
        return drive(number, EntryKey.parse(node.get("entry").asText()), node.path("tag").asText(""), crashes);
    }

    @Override
    public String toString() {
        return "claim " + number + entry.map(key -> " of entry " + key).orElse(": none left" + (reason.isEmpty() ? ""
                : " (" + reason + ")"));
    }
}
