package org.carla.leaderboard.localstack.kubernetes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Image profiles read from flat configuration (properties, environment, command line), one profile per id:
 * <pre>
 * &lt;prefix&gt;&lt;id&gt;.image=carla-leaderboard/pod-runtime:.*          (regex over the whole image; required)
 * &lt;prefix&gt;&lt;id&gt;.order=10                                      (lower first; default 100, then by id)
 * &lt;prefix&gt;&lt;id&gt;.command./usr/local/bin/pod-runtime=java -jar /x/quarkus-run.jar
 * &lt;prefix&gt;&lt;id&gt;.entrypoint=/bin/true
 * &lt;prefix&gt;&lt;id&gt;.env.NAME=value                                 (the image's ENV)
 * &lt;prefix&gt;&lt;id&gt;.override-env.NAME=value                        (wins over the container's env)
 * &lt;prefix&gt;&lt;id&gt;.user=1000:1000                                 (the image's USER; default root)
 * &lt;prefix&gt;&lt;id&gt;.pull-error=not found                           (no node can pull it: the registry's answer)
 * </pre>
 * An argv is split on whitespace, or given as a JSON array of strings when an element holds a space.
 */
public final class ImageProfiles {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]+");

    private ImageProfiles() {
    }

    /** The profiles under {@code prefix} (e.g. {@code "local-stack.images."}), in order; unknown keys are errors. */
    public static List<ImageProfile> fromProperties(Map<String, String> properties, String prefix) {
        Map<String, Map<String, String>> byId = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (!key.startsWith(prefix)) {
                return;
            }
            String rest = key.substring(prefix.length());
            int dot = rest.indexOf('.');
            String id = dot < 0 ? rest : rest.substring(0, dot);
            if (dot < 0 || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException("image profile key " + key + " is not " + prefix + "<id>.<setting>");
            }
            byId.computeIfAbsent(id, ignored -> new LinkedHashMap<>()).put(rest.substring(dot + 1), value);
        });
        List<Map.Entry<Integer, ImageProfile>> ordered = new ArrayList<>();
        byId.forEach((id, settings) -> ordered.add(Map.entry(order(id, settings), profile(prefix + id, settings))));
        ordered.sort(Map.Entry.comparingByKey());
        return ordered.stream().map(Map.Entry::getValue).toList();
    }

    private static ImageProfile profile(String name, Map<String, String> settings) {
        String image = settings.get("image");
        if (image == null || image.isBlank()) {
            throw new IllegalArgumentException(name + ".image is required (a regular expression over the image)");
        }
        ImageProfile profile = ImageProfile.forImages(image);
        Map<String, String> env = new HashMap<>();
        Map<String, String> overrideEnv = new HashMap<>();
        for (var setting : settings.entrySet()) {
            String key = setting.getKey();
            String value = setting.getValue();
            if (key.startsWith("command.")) {
                profile = profile.withCommand(key.substring("command.".length()), argv(name + "." + key, value));
            } else if (key.equals("entrypoint")) {
                profile = profile.withEntrypoint(argv(name + "." + key, value));
            } else if (key.startsWith("env.")) {
                env.put(key.substring("env.".length()), value);
            } else if (key.startsWith("override-env.")) {
                overrideEnv.put(key.substring("override-env.".length()), value);
            } else if (key.equals("user")) {
                profile = profile.withUser(ImageProfile.User.parse(value));
            } else if (key.equals("pull-error")) {
                profile = profile.withPullError(value);
            } else if (!key.equals("image") && !key.equals("order")) {
                throw new IllegalArgumentException("unknown image profile setting " + name + "." + key);
            }
        }
        return profile.withEnv(env).withOverrideEnv(overrideEnv);
    }

    private static int order(String id, Map<String, String> settings) {
        String order = settings.get("order");
        try {
            return order == null ? 100 : Integer.parseInt(order.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("image profile " + id + ": order must be an integer, not " + order);
        }
    }

    private static List<String> argv(String key, String value) {
        String trimmed = value.trim();
        List<String> argv;
        if (trimmed.startsWith("[")) {
            try {
                argv = JSON.readValue(trimmed, new TypeReference<List<String>>() {
                });
            } catch (JacksonException e) {
                throw new IllegalArgumentException(key + " is not a JSON array of strings: " + e.getOriginalMessage());
            }
        } else {
            argv = trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("\\s+"));
        }
        if (argv.isEmpty()) {
            throw new IllegalArgumentException(key + " must name a program");
        }
        return argv;
    }
}
