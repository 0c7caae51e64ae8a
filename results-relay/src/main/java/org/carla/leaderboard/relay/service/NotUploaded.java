package org.carla.leaderboard.relay.service;

import java.util.List;

/**
 * What the participant is told of the files logcopy's last report named as not uploaded (at most 50, paths of the logs
 * volume a participant's code may have named): each on a line of its own, control characters escaped, long names cut.
 */
final class NotUploaded {

    private static final int MAX_NAME = 200;

    private NotUploaded() {
    }

    /** The notice for the final report's stderr; empty when everything was uploaded. */
    static String notice(List<String> notUploaded) {
        if (notUploaded.isEmpty()) {
            return "";
        }
        var text = new StringBuilder("\nThese files of the run could not be uploaded before its pod ended and are not"
                + " kept:\n");
        for (String name : notUploaded) {
            text.append("- ").append(printable(name)).append('\n');
        }
        return text.toString();
    }

    private static String printable(String name) {
        var out = new StringBuilder();
        name.codePoints().limit(MAX_NAME).forEach(c -> {
            if (Character.isISOControl(c) || !Character.isDefined(c) || Character.getType(c) == Character.SURROGATE) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return name.codePointCount(0, name.length()) > MAX_NAME ? out.append("...").toString() : out.toString();
    }
}
