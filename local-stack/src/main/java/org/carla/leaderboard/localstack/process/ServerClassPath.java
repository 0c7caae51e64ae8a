package org.carla.leaderboard.localstack.process;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The class path of a local server, as the module {@code local-stack/servers/<name>} recorded it at build time in
 * {@code META-INF/local-stack/<name>.classpath}, plus that module's own classes (its launcher), from its jar when one
 * was packaged from them. Native libraries
 * listed there (DynamoDB Local's sqlite4java) are kept apart from the class path entries.
 *
 * @param entries          jars and class folders, in the recorded order
 * @param nativeLibraries  the recorded native libraries ({@code .so}, {@code .dylib}, {@code .dll})
 */
public record ServerClassPath(List<Path> entries, List<Path> nativeLibraries) {

    private static final String BUILD_HINT = "build it with ./mvnw -B -pl local-stack -am package -DskipTests";

    /** The class path of {@code server}, checked to hold its {@code launcher} class (an old build may not). */
    public static ServerClassPath of(String server, String launcher) {
        var classPath = of(server);
        Path module = classPath.entries().get(0);
        String classFile = launcher.replace('.', '/') + ".class";
        boolean found;
        try {
            if (Files.isDirectory(module)) {
                found = Files.exists(module.resolve(classFile));
            } else {
                try (var jar = new java.util.jar.JarFile(module.toFile())) {
                    found = jar.getEntry(classFile) != null;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + module + ": " + e.getMessage(), e);
        }
        if (!found) {
            throw new IllegalStateException(module + " has no " + launcher + ": an old build of local-stack-server-"
                    + server + " (from ~/.m2?); " + BUILD_HINT + " so the reactor's own modules are used");
        }
        return classPath;
    }

    public static ServerClassPath of(String server) {
        String resource = "META-INF/local-stack/" + server + ".classpath";
        URL url = classLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException("no " + resource + " on the class path: local-stack-server-" + server
                    + " is missing; " + BUILD_HINT);
        }
        String recorded;
        try (InputStream in = url.openStream()) {
            recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + url + ": " + e.getMessage(), e);
        }
        var entries = new ArrayList<Path>();
        entries.add(packaged(codeSource(url, resource), server));
        var nativeLibraries = new ArrayList<Path>();
        for (String element : recorded.split(java.io.File.pathSeparator)) {
            if (element.isBlank()) {
                continue;
            }
            Path path = Path.of(element);
            if (!Files.exists(path)) {
                throw new IllegalStateException(server + " needs " + path + ", which is gone; " + BUILD_HINT);
            }
            String file = path.getFileName().toString();
            if (file.endsWith(".so") || file.endsWith(".dylib") || file.endsWith(".dll")) {
                nativeLibraries.add(path);
            } else {
                entries.add(path);
            }
        }
        return new ServerClassPath(List.copyOf(entries), List.copyOf(nativeLibraries));
    }

    /** The class path as the {@code java -cp} argument. */
    public String asArgument() {
        return String.join(java.io.File.pathSeparator, entries.stream().map(Path::toString).toList());
    }

    /** The folder of the native library whose file name contains {@code fileNamePart}, e.g. {@code linux-amd64}. */
    public Path nativeLibraryFolder(String fileNamePart) {
        return nativeLibraries.stream()
                .filter(library -> library.getFileName().toString().contains(fileNamePart))
                .findFirst()
                .map(Path::getParent)
                .orElseThrow(() -> new IllegalStateException("no native library for " + fileNamePart + " among "
                        + nativeLibraries));
    }

    /** The jar or class folder the resource was read from: the server module's own launcher lives there. */
    private static Path codeSource(URL url, String resource) {
        try {
            String external = url.toString();
            if (external.startsWith("jar:")) {
                return Path.of(new java.net.URI(external.substring("jar:".length(), external.indexOf("!/"))));
            }
            if (external.startsWith("file:")) {
                Path file = Path.of(url.toURI());
                Path root = file;
                for (int i = 0; i < Path.of(resource).getNameCount(); i++) {
                    root = root.getParent();
                }
                return root;
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot locate the module of " + url + ": " + e.getMessage(), e);
        }
        throw new IllegalStateException("cannot locate the module of " + url + " (neither a jar nor a folder)");
    }

    /**
     * The module's jar instead of its class folder when one was packaged from those classes: Quarkus's test class
     * loading resolves the reactor's modules to their {@code target/classes}, and the JVM archives no class path with a
     * folder on it ({@link ClassDataArchive}). The folder when no jar there is at least as new as every file in it.
     */
    static Path packaged(Path module, String server) {
        if (!Files.isDirectory(module) || module.getParent() == null) {
            return module;
        }
        try (var files = Files.walk(module); var siblings = Files.list(module.getParent())) {
            long newest = 0;
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                newest = Math.max(newest, Files.getLastModifiedTime(file).toMillis());
            }
            long classes = newest;
            String prefix = "local-stack-server-" + server + "-";
            return siblings.filter(jar -> jar.getFileName().toString().startsWith(prefix)
                            && jar.getFileName().toString().endsWith(".jar") && Files.isRegularFile(jar))
                    .filter(jar -> {
                        try {
                            return Files.getLastModifiedTime(jar).toMillis() >= classes;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .findFirst().orElse(module);
        } catch (IOException e) {
            return module;
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : ServerClassPath.class.getClassLoader();
    }
}
