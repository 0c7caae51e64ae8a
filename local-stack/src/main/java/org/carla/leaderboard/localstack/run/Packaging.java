package org.carla.leaderboard.localstack.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * How the local run starts the system's own programs (the services, ops-console, pod-runtime): from their packaged
 * jars on this JVM's Java, or as the native executables {@code ./mvnw -Pnative package} builds, as they run in their
 * containers. The stand-ins stay Java programs either way.
 */
public enum Packaging {

    JVM,
    NATIVE;

    /** The system property that chooses it ({@code jvm} or {@code native}): the Maven profile {@code native} sets it. */
    public static final String PROPERTY = "local-run.packaging";

    /** {@link #PROPERTY}'s value; {@link #JVM} when unset or blank. */
    public static Packaging fromSystemProperty() {
        return parse(System.getProperty(PROPERTY, ""));
    }

    static Packaging parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "", "jvm" -> JVM;
            case "native" -> NATIVE;
            default -> throw new IllegalArgumentException(PROPERTY + " is jvm or native, not " + text);
        };
    }

    /**
     * The packaged program of {@code module} in {@code projectDir}: {@code <module>/target/quarkus-app/quarkus-run.jar},
     * or the native executable {@code <module>/target/<module>-<version>-runner}.
     */
    public Path program(Path projectDir, String module) {
        Path target = projectDir.resolve(module).resolve("target");
        if (this == JVM) {
            return target.resolve("quarkus-app/quarkus-run.jar");
        }
        Path missing = target.resolve(module + "-<version>-runner");
        if (!Files.isDirectory(target)) {
            return missing;
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(file -> isRunner(file, module)).findFirst().orElse(missing);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isRunner(Path file, String module) {
        String name = file.getFileName().toString();
        return name.startsWith(module + "-") && name.endsWith("-runner") && Files.isRegularFile(file);
    }

    /**
     * The command line that runs {@code program} ({@link #program}) with {@code jvmOptions}: all of them on a JVM; a
     * native executable takes those it knows too (system properties {@code -D}, the heap's {@code -Xmx} and
     * {@code -XX:MaxRAM}) after its name, and the others (the JIT's, the collector's, class data sharing) are dropped.
     */
    public List<String> command(Path program, List<String> jvmOptions) {
        if (this == NATIVE) {
            var command = new ArrayList<String>();
            command.add(program.toString());
            jvmOptions.stream().filter(Packaging::nativeTakes).forEach(command::add);
            return List.copyOf(command);
        }
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(program.toString());
        return List.copyOf(command);
    }

    private static boolean nativeTakes(String option) {
        return option.startsWith("-D") || option.startsWith("-Xmx") || option.startsWith("-XX:MaxRAM=");
    }

    /** What builds the programs when one is missing. */
    public String buildHint() {
        return this == JVM ? "./mvnw -B package -DskipTests, or ./run-local.sh which does it"
                : "./mvnw -B -Pnative package -DskipTests -Dquarkus.native.graalvm-home=..., or ./run-local.sh --native";
    }
}
