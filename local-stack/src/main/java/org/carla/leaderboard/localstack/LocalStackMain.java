package org.carla.leaderboard.localstack;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * Runs the local stack until SIGINT/SIGTERM ({@code ./run-local.sh --stack-only}): prints the endpoints and the
 * Quarkus configuration overrides, then waits; the stack's shutdown hook stops every server on the way out.
 */
public final class LocalStackMain {

    static final String READY_LINE = "local stack ready";

    private LocalStackMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("local-stack: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(usage());
            return;
        }
        var builder = LocalStack.builder().components(options.components()).evaluation(options.evaluation())
                .settings(options.settings());
        options.ports().forEach(builder::port);
        if (options.workDir() != null) {
            builder.workDir(options.workDir());
        }
        RunningStack stack;
        try {
            stack = builder.start();
        } catch (RuntimeException e) {
            System.err.println("local-stack: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stack.close();
            System.out.println("local stack stopped");
        }, "local-stack-main-shutdown"));
        print(stack, System.out);
        // Nothing to do until a signal: the shutdown hooks stop the stack.
        new CountDownLatch(1).await();
    }

    static void print(RunningStack stack, PrintStream out) {
        out.println("Local stack, work dir " + stack.workDir() + " (logs: <component>/<component>.log)");
        out.println();
        out.println("Endpoints:");
        var pids = new LinkedHashMap<String, String>();
        for (String name : stack.started()) {
            var component = stack.component(name, StackComponent.class);
            pids.put(name, component.processes().stream().map(p -> Long.toString(p.pid()))
                    .collect(Collectors.joining(",")));
        }
        stack.endpoints().forEach((name, uri) -> out.printf("  %-12s %-28s%s%n", name, uri,
                pids.getOrDefault(name, "").isEmpty() ? "" : " pid " + pids.get(name)));
        out.println();
        out.println("Quarkus configuration overrides (application.properties form):");
        stack.quarkusConfig().forEach((key, value) -> out.println("  " + key + "=" + value));
        out.println();
        out.println("The same as environment variables:");
        stack.quarkusConfig().forEach((key, value) -> out.println("  " + environmentName(key) + "=" + value));
        out.println();
        out.println("AWS credentials of each ServiceAccount's IAM role (deploy/aws), the same keys with the secret "
                + "(owner-only files):");
        writeCredentials(stack).forEach(file -> out.println("  " + file));
        out.println();
        out.println(READY_LINE + " (Ctrl-C stops it)");
        out.flush();
    }

    /** One owner-only properties file of AWS client keys per ServiceAccount a role of deploy/aws trusts. */
    static List<Path> writeCredentials(RunningStack stack) {
        var files = new ArrayList<Path>();
        try {
            Path folder = Files.createDirectories(stack.workDir().resolve("credentials"));
            for (var principal : stack.access().deployment().principals()) {
                for (String reference : principal.serviceAccounts()) {
                    String[] parts = reference.split(":", 2);
                    var account = new ServiceAccount(parts[0], parts[1]);
                    Path file = folder.resolve(account.namespace() + "." + account.name() + ".properties");
                    Files.deleteIfExists(file);
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
                    var text = new StringBuilder("# " + principal.name() + ", the IAM role of " + account + "\n");
                    stack.quarkusConfig(account).forEach((key, value) -> {
                        if (key.contains(".aws.credentials.")) {
                            text.append(key).append('=').append(value).append('\n');
                        }
                    });
                    Files.writeString(file, text);
                    files.add(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the credentials files", e);
        }
        return files;
    }

    /** MicroProfile Config's environment-variable form of a property name. */
    static String environmentName(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    static String usage() {
        return """
                Usage: local-stack [options]   (./run-local.sh --stack-only [options])
                  --components a,b,...       components to start (default: all: %s)
                  --<component>-port N       fixed port of a component, e.g. --sqs-port 9324 (default: a free port)
                  --work-dir DIR             logs and data (default: a temporary folder removed on exit)
                  --evaluation key=value     an evaluation.* override (leaderboards, tables, buckets); repeatable
                  --setting key=value        a local-stack.* setting (e.g. local-stack.images.<id>.* image profiles
                                             of the Job runner); repeatable
                  --config FILE              a properties file of evaluation.* and local-stack.* keys
                  --help                     this text
                Stops on Ctrl-C (SIGINT) or SIGTERM, leaving no process behind.""".formatted(
                String.join(",", LocalStack.knownComponents()));
    }

    record Options(List<String> components, Map<String, Integer> ports, Map<String, String> evaluation,
            Map<String, String> settings, Path workDir, boolean help) {

        static Options parse(String[] args) {
            List<String> components = new ArrayList<>(LocalStack.knownComponents());
            var ports = new LinkedHashMap<String, Integer>();
            var evaluation = new LinkedHashMap<String, String>();
            var settings = new LinkedHashMap<String, String>();
            Path workDir = null;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help", "-h" -> {
                        return new Options(components, ports, evaluation, settings, workDir, true);
                    }
                    case "--stack-only" -> {
                        // run-local.sh's mode; this program only ever runs the stack
                    }
                    case "--components" -> components = List.of(value(args, ++i, arg).split(","));
                    case "--work-dir" -> workDir = Path.of(value(args, ++i, arg));
                    case "--evaluation" -> put(evaluation, value(args, ++i, arg), arg);
                    case "--setting" -> put(settings, value(args, ++i, arg), arg);
                    case "--config" -> {
                        var file = Path.of(value(args, ++i, arg));
                        var properties = new Properties();
                        try (var in = Files.newBufferedReader(file)) {
                            properties.load(in);
                        } catch (IOException e) {
                            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
                        }
                        for (String key : properties.stringPropertyNames()) {
                            if (key.startsWith("evaluation.")) {
                                evaluation.put(key, properties.getProperty(key));
                            } else if (key.startsWith("local-stack.")) {
                                settings.put(key, properties.getProperty(key));
                            } else {
                                throw new IllegalArgumentException(file + ": " + key
                                        + " is neither an evaluation.* nor a local-stack.* key");
                            }
                        }
                    }
                    default -> {
                        if (arg.startsWith("--") && arg.endsWith("-port")) {
                            String component = arg.substring(2, arg.length() - "-port".length());
                            if (!LocalStack.knownComponents().contains(component)) {
                                throw new IllegalArgumentException("unknown component in " + arg);
                            }
                            String port = value(args, ++i, arg);
                            try {
                                ports.put(component, Integer.parseInt(port));
                            } catch (NumberFormatException e) {
                                throw new IllegalArgumentException(arg + " takes a port number, not " + port);
                            }
                        } else {
                            throw new IllegalArgumentException("unknown option " + arg);
                        }
                    }
                }
            }
            return new Options(components, ports, evaluation, settings, workDir, false);
        }

        private static void put(Map<String, String> target, String pair, String option) {
            int equals = pair.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException(option + " takes key=value, not " + pair);
            }
            target.put(pair.substring(0, equals), pair.substring(equals + 1));
        }

        private static String value(String[] args, int index, String option) {
            if (index >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }
    }
}
