package org.carla.leaderboard.podruntime.role;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An argv template from the Job ({@code CARLA_SERVER_COMMAND}, {@code EVALUATOR_COMMAND}): split on whitespace first,
 * then placeholders are replaced inside each word, so a value never splits into more arguments and never meets a shell.
 */
public final class CommandTemplate {

    private CommandTemplate() {
    }

    public static List<String> expand(String template, Map<String, String> placeholders) {
        List<String> argv = new ArrayList<>();
        for (String word : template.trim().split("\\s+")) {
            if (word.isEmpty()) {
                continue;
            }
            String expanded = word;
            for (Map.Entry<String, String> placeholder : placeholders.entrySet()) {
                expanded = expanded.replace(placeholder.getKey(), placeholder.getValue());
            }
            argv.add(expanded);
        }
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty command template");
        }
        return argv;
    }
}
