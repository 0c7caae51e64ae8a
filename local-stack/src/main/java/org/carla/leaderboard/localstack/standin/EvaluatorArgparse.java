package org.carla.leaderboard.localstack.standin;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.track.LeaderboardVersion;

/**
 * {@code leaderboard_evaluator.py}'s command line as Python's argparse parses the parser each branch's {@code main()}
 * builds (carla-simulator/leaderboard, {@code leaderboard-1.0} and {@code leaderboard-2.0}): options as
 * {@code --name=value}, {@code --name value}, {@code -a value} or {@code -avalue}, a unique prefix of a long option
 * ({@code --rep=3}), the last of a repeated option; the types' conversions ({@code int}, {@code float}, and
 * {@code type=bool}, which takes any non-empty text as true). An error is argparse's: the usage (wrapped at
 * {@code COLUMNS} − 2, else 78, as argparse wraps it when the output is not a terminal) and
 * {@code <prog>: error: <message>} on stderr, exit 2, for an ambiguous prefix, an option without its value, a value
 * its type refuses, a missing required option or anything unrecognized — in argparse's order. {@code -h} prints the
 * usage (not the options' help texts) and exits 0.
 */
final class EvaluatorArgparse {

    enum Type {
        STR, INT, FLOAT, BOOL
    }

    /** One {@code add_argument}: its option strings in order, its type, whether required, its default as text. */
    record Option(List<String> flags, Type type, boolean required, String defaultValue) {

        /** argparse's {@code dest}: the first long option without its dashes, {@code -} made {@code _}. */
        String dest() {
            String long_ = flags.stream().filter(flag -> flag.startsWith("--")).findFirst().orElse(flags.get(0));
            return long_.replaceFirst("^-+", "").replace('-', '_');
        }

        /** argparse's name of the action in its messages: {@code -a/--agent}. */
        String name() {
            return String.join("/", flags);
        }

        /** Its parts of the usage: a required option's flag and metavar are two parts, as argparse splits them. */
        List<String> usage() {
            String metavar = dest().toUpperCase(java.util.Locale.ROOT);
            return required ? List.of(flags.get(0), metavar) : List.of("[" + flags.get(0) + " " + metavar + "]");
        }
    }

    /** What the command line gave: the parsed values by {@code dest}, or argparse's exit. */
    sealed interface Result {
    }

    /** Every option's value by {@code dest} (defaults included), as text: an int in digits, a bool as given. */
    record Parsed(Map<String, String> values) implements Result {
    }

    record Exit(int code, String stdout, String stderr) implements Result {
    }

    private static final Option HELP = new Option(List.of("-h", "--help"), Type.BOOL, false, "");
    private static final Pattern NEGATIVE_NUMBER = Pattern.compile("^-\\d+$|^-\\d*\\.\\d+$");
    private static final Pattern PYTHON_INT = Pattern.compile("[+-]?\\d+(_\\d+)*", Pattern.UNICODE_CHARACTER_CLASS);
    private static final String DIGITS = "\\d(_?\\d)*";
    private static final Pattern PYTHON_FLOAT = Pattern.compile("[+-]?((" + DIGITS + ")?\\." + DIGITS + "|" + DIGITS
            + "\\.?)([eE][+-]?" + DIGITS + ")?|[+-]?(inf|infinity|nan)", Pattern.CASE_INSENSITIVE
                    | Pattern.UNICODE_CHARACTER_CLASS);

    private final List<Option> options;

    private EvaluatorArgparse(List<Option> options) {
        var all = new ArrayList<Option>();
        all.add(HELP);
        all.addAll(options);
        this.options = List.copyOf(all);
    }

    /** The parser of the version's {@code main()}, its options in the order it adds them. */
    static EvaluatorArgparse of(LeaderboardVersion version) {
        return switch (version) {
            case V1_0 -> new EvaluatorArgparse(List.of(
                    option("--host", Type.STR, "localhost"), option("--port", Type.STR, "2000"),
                    option("--trafficManagerPort", Type.STR, "8000"), option("--trafficManagerSeed", Type.STR, "0"),
                    option("--debug", Type.INT, "0"), option("--record", Type.STR, ""),
                    option("--timeout", Type.STR, "60.0"), required("--routes"), required("--scenarios"),
                    option("--repetitions", Type.INT, "1"), option("--routes-subset", Type.STR, ""),
                    new Option(List.of("-a", "--agent"), Type.STR, true, null), option("--agent-config", Type.STR, ""),
                    option("--track", Type.STR, "SENSORS"), option("--resume", Type.BOOL, ""),
                    option("--checkpoint", Type.STR, "./simulation_results.json")));
            case V2_0 -> new EvaluatorArgparse(List.of(
                    option("--host", Type.STR, "localhost"), option("--port", Type.INT, "2000"),
                    option("--traffic-manager-port", Type.INT, "8000"),
                    option("--traffic-manager-seed", Type.INT, "0"), option("--debug", Type.INT, "0"),
                    option("--record", Type.STR, ""), option("--timeout", Type.FLOAT, "300.0"), required("--routes"),
                    option("--routes-subset", Type.STR, ""), option("--repetitions", Type.INT, "1"),
                    new Option(List.of("-a", "--agent"), Type.STR, true, null), option("--agent-config", Type.STR, ""),
                    option("--track", Type.STR, "SENSORS"), option("--resume", Type.BOOL, ""),
                    option("--checkpoint", Type.STR, "./simulation_results.json"),
                    option("--debug-checkpoint", Type.STR, "./live_results.txt")));
        };
    }

    private static Option option(String flag, Type type, String defaultValue) {
        return new Option(List.of(flag), type, false, defaultValue);
    }

    private static Option required(String flag) {
        return new Option(List.of(flag), Type.STR, true, null);
    }

    /** An option string's place in the command line: the option it names (or none: unknown) and its explicit value. */
    private record Flag(Option option, String flag, String explicit) {
    }

    /** argparse's {@code error()}: thrown to leave the parse at once. */
    private static final class ArgparseError extends Exception {
        ArgparseError(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Parses {@code argv} (without the program) as {@code prog}'s argparse would.
     *
     * @param env for {@code COLUMNS}, which sets the usage's width
     */
    Result parse(String prog, List<String> argv, Map<String, String> env) {
        String usage = usage(prog, width(env));
        try {
            Optional<Parsed> parsed = consume(classify(argv), argv);
            return parsed.isPresent() ? parsed.get() : new Exit(0, usage, "");
        } catch (ArgparseError e) {
            return new Exit(2, "", usage + prog + ": error: " + e.getMessage() + "\n");
        }
    }

    /** Each argument's kind, before anything is consumed: a {@link Flag}, or null for a value ("A" in argparse). */
    private List<Flag> classify(List<String> argv) throws ArgparseError {
        var kinds = new ArrayList<Flag>();
        boolean rest = false;
        for (String arg : argv) {
            if (rest) {
                kinds.add(null);
            } else if (arg.equals("--")) {
                rest = true;
                kinds.add(new Flag(null, "--", null)); // neither a value nor an option: it goes unrecognized
            } else {
                kinds.add(optional(arg));
            }
        }
        return kinds;
    }

    /** argparse's {@code _parse_optional}: null when the argument is a value. */
    private Flag optional(String arg) throws ArgparseError {
        if (arg.isEmpty() || arg.charAt(0) != '-') {
            return null;
        }
        Optional<Option> exact = named(arg);
        if (exact.isPresent()) {
            return new Flag(exact.get(), arg, null);
        }
        if (arg.length() == 1) {
            return null;
        }
        int equals = arg.indexOf('=');
        if (equals >= 0 && named(arg.substring(0, equals)).isPresent()) {
            return new Flag(named(arg.substring(0, equals)).get(), arg.substring(0, equals), arg.substring(equals + 1));
        }
        List<Flag> candidates = prefixed(arg);
        if (candidates.size() > 1) {
            throw new ArgparseError("ambiguous option: " + arg + " could match "
                    + String.join(", ", candidates.stream().map(Flag::flag).toList()));
        }
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        if (NEGATIVE_NUMBER.matcher(arg).matches() || arg.contains(" ")) {
            return null;
        }
        return new Flag(null, arg, null);
    }

    /** argparse's {@code _get_option_tuples}: the options a prefix ({@code --rep}) or a short flag with its value names. */
    private List<Flag> prefixed(String arg) {
        var found = new ArrayList<Flag>();
        boolean long_ = arg.startsWith("--");
        int equals = arg.indexOf('=');
        String prefix = long_ && equals >= 0 ? arg.substring(0, equals) : arg;
        String explicit = long_ && equals >= 0 ? arg.substring(equals + 1) : null;
        for (Option option : options) {
            for (String flag : option.flags()) {
                if (!long_ && flag.equals(arg.substring(0, 2))) {
                    found.add(new Flag(option, flag, arg.substring(2)));
                } else if (flag.startsWith(prefix)) {
                    found.add(new Flag(option, flag, explicit));
                }
            }
        }
        return found;
    }

    private Optional<Option> named(String flag) {
        return options.stream().filter(option -> option.flags().contains(flag)).findFirst();
    }

    /** Consumes the arguments in order; empty when {@code -h} asked for the usage. */
    private Optional<Parsed> consume(List<Flag> kinds, List<String> argv) throws ArgparseError {
        var values = new LinkedHashMap<String, String>();
        options.stream().filter(option -> option != HELP && option.defaultValue() != null)
                .forEach(option -> values.put(option.dest(), option.defaultValue()));
        var seen = new ArrayList<Option>();
        var extras = new ArrayList<String>();
        for (int i = 0; i < argv.size(); i++) {
            Flag flag = kinds.get(i);
            if (flag == null || flag.option() == null) {
                extras.add(argv.get(i));
            } else if (flag.option() == HELP) {
                if (flag.explicit() != null && !combinesWithAFlag(flag)) {
                    throw new ArgparseError("argument " + HELP.name() + ": ignored explicit argument "
                            + repr(flag.explicit()));
                }
                return Optional.empty();
            } else {
                String value;
                if (flag.explicit() != null) {
                    value = flag.explicit();
                } else if (i + 1 < argv.size() && kinds.get(i + 1) == null) {
                    value = argv.get(++i);
                } else {
                    throw new ArgparseError("argument " + flag.option().name() + ": expected one argument");
                }
                values.put(flag.option().dest(), convert(flag.option(), value));
                seen.add(flag.option());
            }
        }
        List<String> missing = options.stream().filter(option -> option.required() && !seen.contains(option))
                .map(Option::name).toList();
        if (!missing.isEmpty()) {
            throw new ArgparseError("the following arguments are required: " + String.join(", ", missing));
        }
        if (!extras.isEmpty()) {
            throw new ArgparseError("unrecognized arguments: " + String.join(" ", extras));
        }
        return Optional.of(new Parsed(values));
    }

    /** {@code -hX}: argparse reads X as the next short flag when there is one ({@code -ha...}), and -h acts first. */
    private boolean combinesWithAFlag(Flag help) {
        return !help.flag().startsWith("--") && !help.explicit().isEmpty()
                && named("-" + help.explicit().charAt(0)).isPresent();
    }

    private static String convert(Option option, String value) throws ArgparseError {
        String text = value.strip();
        switch (option.type()) {
            case INT:
                if (PYTHON_INT.matcher(text).matches()) {
                    return new BigInteger(text.replace("_", "").replace("+", "")).toString();
                }
                throw new ArgparseError("argument " + option.name() + ": invalid int value: " + repr(value));
            case FLOAT:
                if (PYTHON_FLOAT.matcher(text).matches()) {
                    return Double.toString(pythonFloat(text.replace("_", "")));
                }
                throw new ArgparseError("argument " + option.name() + ": invalid float value: " + repr(value));
            default:
                return value;
        }
    }

    private static double pythonFloat(String text) {
        String word = text.toLowerCase(java.util.Locale.ROOT).replaceFirst("^[+-]", "");
        boolean negative = text.startsWith("-");
        if (word.startsWith("inf")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (word.equals("nan")) {
            return Double.NaN;
        }
        return new java.math.BigDecimal(text.replace("+", "")).doubleValue();
    }

    /** Python's {@code repr} of a str: single quotes unless it holds one and no double quote. */
    static String repr(String text) {
        char quote = text.contains("'") && !text.contains("\"") ? '"' : '\'';
        var out = new StringBuilder().append(quote);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == quote) {
                        out.append('\\').append(c);
                    } else if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append(quote).toString();
    }

    /** argparse's formatter width: {@code COLUMNS} − 2 when it is a positive number, else 80 − 2. */
    private static int width(Map<String, String> env) {
        try {
            int columns = Integer.parseInt(env.getOrDefault("COLUMNS", "").trim());
            return (columns > 0 ? columns : 80) - 2;
        } catch (NumberFormatException e) {
            return 78;
        }
    }

    /** argparse's {@code format_usage}: the parts on lines of at most {@code width}, indented under the program. */
    String usage(String prog, int width) {
        var parts = new ArrayList<String>();
        options.forEach(option -> parts.addAll(option == HELP ? List.of("[-h]") : option.usage()));
        String prefix = "usage: ";
        String oneLine = prog + " " + String.join(" ", parts);
        if (prefix.length() + oneLine.length() <= width) {
            return prefix + oneLine + "\n";
        }
        var all = new ArrayList<String>();
        all.add(prog);
        all.addAll(parts);
        if (prefix.length() + prog.length() > 0.75 * width) {
            return prefix + prog + "\n" + String.join("\n", lines(parts, " ".repeat(prefix.length()), null, width))
                    + "\n";
        }
        return prefix + String.join("\n", lines(all, " ".repeat(prefix.length() + prog.length() + 1), prefix, width))
                + "\n";
    }

    /** argparse's {@code get_lines}. */
    private static List<String> lines(List<String> parts, String indent, String prefix, int width) {
        var lines = new ArrayList<String>();
        var line = new ArrayList<String>();
        int length = (prefix != null ? prefix.length() : indent.length()) - 1;
        for (String part : parts) {
            if (length + 1 + part.length() > width && !line.isEmpty()) {
                lines.add(indent + String.join(" ", line));
                line.clear();
                length = indent.length() - 1;
            }
            line.add(part);
            length += part.length() + 1;
        }
        if (!line.isEmpty()) {
            lines.add(indent + String.join(" ", line));
        }
        if (prefix != null) {
            lines.set(0, lines.get(0).substring(indent.length()));
        }
        return lines;
    }
}
