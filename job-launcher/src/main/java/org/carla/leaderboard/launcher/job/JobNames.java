package org.carla.leaderboard.launcher.job;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.Normalizer;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.event.SubmissionIdentity;

/**
 * The Job's name and label values, derived so that nothing a participant chose (a team name of emoji, 300 characters,
 * {@code ../;rm -rf}) reaches a Kubernetes name or label unescaped. The one place that names a submission's Job.
 */
public final class JobNames {

    /** Kubernetes puts the Job name in the pods' {@code job-name} label: at most 63 characters. */
    public static final int MAX_NAME_LENGTH = 63;
    private static final int MAX_TRACK_LENGTH = 20;
    private static final Pattern NOT_NAME_CHARACTERS = Pattern.compile("[^a-z0-9]+");
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern LABEL_VALUE = Pattern.compile("(?:[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?");
    private static final Pattern NOT_LABEL_CHARACTERS = Pattern.compile("[^A-Za-z0-9._-]+");
    private static final Pattern LABEL_EDGES = Pattern.compile("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$");

    private JobNames() {
    }

    /**
     * {@code <team>-<track>-<submission id>-r<run>}, lower-case alphanumerics and '-', at most 63 characters. The team
     * and track parts are shortened first; the id and run are never cut, and since they are the last two
     * '-'-separated parts and hold no '-', two runs (of one submission or of two) never share a name: a resumed run
     * never meets its earlier run's Job under its own name.
     */
    public static String forRun(SubmissionIdentity submission, int run) {
        if (run < 1) {
            throw new IllegalArgumentException("runs are numbered from 1, was " + run);
        }
        String id = slug(submission.submissionId()) + "-r" + run;
        String track = truncate(slug(submission.track()), MAX_TRACK_LENGTH);
        String team = slug(submission.teamName());
        if (team.isEmpty()) {
            team = "team";
        }
        int budget = MAX_NAME_LENGTH - id.length() - 1;
        String prefix = track.isEmpty() ? truncate(team, budget)
                : truncate(team, Math.max(1, budget - track.length() - 1)) + "-" + track;
        return truncate(prefix, budget) + "-" + id;
    }

    /** Lower-case ASCII letters and digits, any other run of characters one '-', no '-' at either end. */
    static String slug(String text) {
        String plain = MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFKD)).replaceAll("")
                .toLowerCase(Locale.ROOT);
        // Letters that do not decompose into ASCII ones: spelled the usual way rather than dropped.
        plain = plain.replace("æ", "ae").replace("œ", "oe").replace("ø", "o").replace("ß", "ss").replace("ł", "l")
                .replace("đ", "d").replace("ð", "d").replace("þ", "th");
        String dashed = NOT_NAME_CHARACTERS.matcher(plain).replaceAll("-");
        return trimDashes(dashed);
    }

    /**
     * A valid label value for {@code raw}: the value itself when it already is one, otherwise its cleaned form with a
     * hash of the original appended, so two different values never share a label value.
     */
    public static String labelValue(String raw) {
        if (raw != null && LABEL_VALUE.matcher(raw).matches()) {
            return raw;
        }
        String text = raw == null ? "" : raw;
        String hash = hash(text);
        String cleaned = NOT_LABEL_CHARACTERS.matcher(Normalizer.normalize(text, Normalizer.Form.NFKD)).replaceAll("-");
        cleaned = LABEL_EDGES.matcher(cleaned).replaceAll("");
        cleaned = LABEL_EDGES.matcher(truncate(cleaned, MAX_NAME_LENGTH - hash.length() - 1)).replaceAll("");
        return cleaned.isEmpty() ? hash : cleaned + "-" + hash;
    }

    private static String truncate(String text, int length) {
        return text.length() <= length ? text : trimDashes(text.substring(0, length));
    }

    private static String trimDashes(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && text.charAt(start) == '-') {
            start++;
        }
        while (end > start && text.charAt(end - 1) == '-') {
            end--;
        }
        return text.substring(start, end);
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
