package org.carla.leaderboard.localstack.kubernetes;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What an image "contains" on this machine: for images matching {@code imagePattern} (a regular expression matched
 * against the whole image reference), the container paths of its programs mapped to local argv prefixes (e.g.
 * {@code /usr/local/bin/pod-runtime} → {@code [java, -jar, .../quarkus-run.jar]}), the image's default entrypoint
 * (used when a container has no {@code command}), its environment (the container's own env overrides it, as an
 * image's {@code ENV} is overridden in Kubernetes), and env that overrides the container's (the local endpoints and
 * credentials the real cluster would provide some other way).
 */
public record ImageProfile(Pattern imagePattern, Map<String, List<String>> commands, List<String> entrypoint,
        Map<String, String> env, Map<String, String> overrideEnv) {

    public ImageProfile {
        Objects.requireNonNull(imagePattern, "imagePattern");
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
        return new ImageProfile(Pattern.compile(imageRegex), Map.of(), List.of(), Map.of(), Map.of());
    }

    public ImageProfile withCommand(String containerPath, List<String> localArgv) {
        var copy = new java.util.HashMap<>(commands);
        copy.put(containerPath, List.copyOf(localArgv));
        return new ImageProfile(imagePattern, copy, entrypoint, env, overrideEnv);
    }

    public ImageProfile withEntrypoint(List<String> argv) {
        return new ImageProfile(imagePattern, commands, argv, env, overrideEnv);
    }

    public ImageProfile withEnv(Map<String, String> imageEnv) {
        var copy = new java.util.HashMap<>(env);
        copy.putAll(imageEnv);
        return new ImageProfile(imagePattern, commands, entrypoint, copy, overrideEnv);
    }

    public ImageProfile withOverrideEnv(Map<String, String> forcedEnv) {
        var copy = new java.util.HashMap<>(overrideEnv);
        copy.putAll(forcedEnv);
        return new ImageProfile(imagePattern, commands, entrypoint, env, copy);
    }

    public boolean matches(String image) {
        return image != null && imagePattern.matcher(image).matches();
    }
}
