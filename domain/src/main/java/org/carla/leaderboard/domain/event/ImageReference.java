package org.carla.leaderboard.domain.event;

import java.util.regex.Pattern;

/**
 * A plain container image reference, {@code [registry[:port]/]name[:tag][@digest]}, after the grammar of the
 * distribution project's reference package. Anything else (spaces, shell characters, quotes, a scheme) is refused
 * before it can reach a Kubernetes object.
 */
public final class ImageReference {

    private static final int MAX_LENGTH = 512;
    private static final String DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    private static final String DOMAIN = DOMAIN_COMPONENT + "(?:\\." + DOMAIN_COMPONENT + ")*(?::[0-9]{1,5})?";
    private static final String PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    private static final String NAME = "(?:" + DOMAIN + "/)?" + PATH_COMPONENT + "(?:/" + PATH_COMPONENT + ")*";
    private static final String TAG = "[\\w][\\w.-]{0,127}";
    private static final String DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
    private static final Pattern REFERENCE = Pattern.compile(NAME + "(?::" + TAG + ")?(?:@" + DIGEST + ")?");

    private ImageReference() {
    }

    public static boolean isValid(String reference) {
        return problem(reference) == null;
    }

    /** Why the reference is refused, or {@code null} when it is a plain image reference. */
    public static String problem(String reference) {
        if (reference == null || reference.isEmpty()) {
            return "no image reference";
        }
        if (reference.length() > MAX_LENGTH) {
            return "image reference longer than " + MAX_LENGTH + " characters";
        }
        if (!REFERENCE.matcher(reference).matches()) {
            return "not a plain registry reference ([registry/]name[:tag][@digest])";
        }
        return null;
    }
}
