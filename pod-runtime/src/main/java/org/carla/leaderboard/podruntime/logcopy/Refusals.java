package org.carla.leaderboard.podruntime.logcopy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.jboss.logging.Logger;

/**
 * The volume's names logcopy does not upload, and why: skipped by the walk (a link, a pipe, too deep, too many), or
 * refused (an unprintable name, a key S3 would refuse, larger than 5 GiB, an S3 answer 400 for it, an open that
 * hung). A refused name is never looked at again; each is logged once, the first {@link #LOGGED_SKIPS} by name and
 * the rest counted, since a participant's code can create new ones for hours.
 */
final class Refusals {

    private static final Logger LOG = Logger.getLogger(LogsUpload.class);
    /** S3's longest key, in UTF-8 bytes. */
    static final int MAX_KEY_BYTES = 1024;
    /** The largest file uploaded (S3's largest copied part, which an append of it needs). */
    static final long MAX_FILE = SubmissionObjects.MAX_PART;
    /** Names remembered as refused. */
    private static final int MAX_REFUSED = 10_000;
    /** Names logged as skipped, one line each; the rest are counted. */
    private static final int LOGGED_SKIPS = 50;

    private final String prefix;
    private final Map<String, String> refused = new LinkedHashMap<>();
    private Map<String, String> skipped = Map.of();
    private final Set<String> logged = new HashSet<>();
    private int unlogged;

    /** @param prefix the submission's S3 prefix, whose length counts in a key's */
    Refusals(String prefix) {
        this.prefix = prefix;
    }

    boolean refused(String relative) {
        return refused.containsKey(relative);
    }

    /** Why a file is not uploaded whatever its content, or null. */
    String unusable(String relative, long size) {
        if (relative.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return "its name holds control characters";
        }
        if ((prefix + relative).getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            return "its S3 key would be longer than " + MAX_KEY_BYTES + " bytes";
        }
        if (size > MAX_FILE) {
            return "larger than " + MAX_FILE / (1024 * 1024 * 1024) + " GiB";
        }
        return null;
    }

    void refuse(String relative, String why) {
        if (refused.size() < MAX_REFUSED) {
            refused.put(relative, why); // beyond, a refused name is looked at again each pass: cheap, and bounded
        }
        log(relative, why);
    }

    /** What this walk skipped (it replaces the last walk's). */
    void skippedByWalk(List<VolumeFiles.Skipped> skips) {
        var now = new LinkedHashMap<String, String>();
        for (VolumeFiles.Skipped skip : skips) {
            now.put(skip.relative(), skip.why());
            log(skip.relative(), skip.why());
        }
        skipped = now;
    }

    /** The volume's root itself cannot be listed. */
    void unlisted(String why) {
        log("", "the logs volume cannot be listed: " + why);
    }

    /** Refused, then skipped by the last walk. */
    List<String> names() {
        var names = new ArrayList<>(refused.keySet());
        names.addAll(skipped.keySet());
        return names;
    }

    /** One line per name, the first time; beyond {@link #LOGGED_SKIPS} names only a count. */
    private void log(String relative, String why) {
        if (logged.contains(relative)) {
            return;
        }
        if (logged.size() < LOGGED_SKIPS) {
            logged.add(relative);
            LOG.warnf("logcopy: %s is not uploaded: %s", RouteRecordCheck.printable(relative), why);
        } else if (unlogged++ == 0) {
            LOG.warnf("logcopy: more than %d files are not uploaded; the rest are not named here", LOGGED_SKIPS);
        }
    }
}
