package org.carla.leaderboard.localstack.kubernetes;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What an image "contains" on this machine: for images matching {@code imagePattern} (a regular expression matched
 * against the whole image reference), the container paths of its programs mapped to local argv prefixes (e.g.
 * {@code /usr/local/bin/pod-runtime} → {@code [java, -jar, .../quarkus-run.jar]}), the image's default entrypoint
 * (used when a container has no {@code command}), its environment (the container's own env overrides it, as an
 * image's {@code ENV} is overridden in Kubernetes), env that overrides the container's (the local endpoints and
 * credentials the real cluster would provide some other way), the image's {@code USER} (uid and gid; empty is
 * root), which a container without {@code runAsUser} runs as, and, for an image no node can pull, the registry's
 * answer ({@code pullError}): its containers then wait in ErrImagePull and ImagePullBackOff and never run.
 */
public record ImageProfile(Pattern imagePattern, Map<String, List<String>> commands, List<String> entrypoint,
        Map<String, String> env, Map<String, String> overrideEnv, Optional<User> user, Optional<String> pullError) {

    /** An image's numeric {@code USER uid:gid}. */
    public record User(long uid, long gid) {

        public User {
            if (uid < 0 || gid < 0) {
                throw new IllegalArgumentException("uid and gid are not negative");
            }
        }

        /** {@code uid} or {@code uid:gid} (gid defaults to 0, as for a uid the image's passwd does not know). */
        public static User parse(String text) {
            String[] parts = text.trim().split(":", -1);
            try {
                if (parts.length > 2) {
                    throw new NumberFormatException();
                }
                return new User(Long.parseLong(parts[0]), parts.length == 2 ? Long.parseLong(parts[1]) : 0);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("an image user is uid or uid:gid (numbers), not " + text);
            }
        }
    }

    public ImageProfile {
        Objects.requireNonNull(imagePattern, "imagePattern");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(pullError, "pullError");
        commands = Map.copyOf(commands);
        commands.values().forEach(argv -> {
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("a command maps to a non-empty local argv");
            }
        });
        entrypoint = List.copyOf(entrypoint);
        env = Map.copyOf(env);
        overrideEnv = Map.copyOf(overrideEnv);
    }

    /** A profile for images matching {@code imageRegex}, with nothing mapped yet. */
    public static ImageProfile forImages(String imageRegex) {
        return new ImageProfile(Pattern.compile(imageRegex), Map.of(), List.of(), Map.of(), Map.of(), Optional.empty(),
                Optional.empty());
    }

    public ImageProfile withCommand(String containerPath, List<String> localArgv) {
        var copy = new java.util.HashMap<>(commands);
        copy.put(containerPath, List.copyOf(localArgv));
        return new ImageProfile(imagePattern, copy, entrypoint, env, overrideEnv, user, pullError);
    }

    public ImageProfile withEntrypoint(List<String> argv) {
        return new ImageProfile(imagePattern, commands, argv, env, overrideEnv, user, pullError);
    }

    public ImageProfile withEnv(Map<String, String> imageEnv) {
        var copy = new java.util.HashMap<>(env);
        copy.putAll(imageEnv);
        return new ImageProfile(imagePattern, commands, entrypoint, copy, overrideEnv, user, pullError);
    }

    public ImageProfile withOverrideEnv(Map<String, String> forcedEnv) {
        var copy = new java.util.HashMap<>(overrideEnv);
        copy.putAll(forcedEnv);
        return new ImageProfile(imagePattern, commands, entrypoint, env, copy, user, pullError);
    }

    /** The image's {@code USER}: what a container without {@code runAsUser} runs as (when the runner is root). */
    public ImageProfile withUser(User imageUser) {
        return new ImageProfile(imagePattern, commands, entrypoint, env, overrideEnv, Optional.of(imageUser),
                pullError);
    }

    /**
     * No node can pull this image: the registry answers {@code reason} (e.g. {@code not found}, {@code pull access
     * denied}).
     */
    public ImageProfile withPullError(String reason) {
        return new ImageProfile(imagePattern, commands, entrypoint, env, overrideEnv, user, Optional.of(reason));
    }

    public boolean matches(String image) {
        return image != null && imagePattern.matcher(image).matches();
    }
}
