package org.carla.leaderboard.podruntime.init;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.record.RunVersions;

/**
 * What the Leaderboard image holds, read from its folders (the operator's image, before any participant's code runs):
 * the Leaderboard checkout's commit, ScenarioRunner's {@code VERSION} and the CARLA PythonAPI's version; and what the
 * simulator's image holds, the CARLA server's {@code VERSION}. Each is read
 * by name, from at most a few KiB, and kept only when it reads as a version ({@link RunVersions#VERSION}); anything else
 * (no {@code .git}, an unusual layout) is left unknown, never a failure.
 */
public final class SoftwareVersions {

    /** The most read of one file: {@code VERSION} is near the top of {@code scenario_runner.py}. */
    static final int MAX_READ = 64 * 1024;
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern REF = Pattern.compile("refs/[A-Za-z0-9._/-]{1,200}");
    private static final Pattern SCENARIO_RUNNER_VERSION = Pattern.compile(
            "(?m)^VERSION\\s*=\\s*['\"]([0-9A-Za-z][0-9A-Za-z._+-]{0,63})['\"]");
    private static final Pattern CARLA_DIST = Pattern.compile(
            "carla-([0-9][0-9A-Za-z._+]{0,63}?)-(?:py|cp)[0-9].*\\.(?:egg|whl)");

    private SoftwareVersions() {
    }

    /**
     * The versions of run {@code run} from the image's folders, each when given, and the CARLA server's that
     * carla-version left in the versions volume ({@link #carlaServer}).
     */
    public static RunVersions read(int run, Optional<Path> leaderboard, Optional<Path> scenarioRunner,
            Optional<Path> carlaPythonApi, Optional<Path> versions) {
        return new RunVersions(run, leaderboard.flatMap(SoftwareVersions::gitCommit),
                scenarioRunner.flatMap(SoftwareVersions::scenarioRunner),
                carlaPythonApi.flatMap(SoftwareVersions::carlaPythonApi),
                versions.flatMap(dir -> version(dir.resolve(PodEnvironment.CARLA_SERVER_VERSION_FILE))));
    }

    /**
     * The CARLA server's version in the simulator's image: the first line of the package's {@code VERSION} (CARLA's
     * {@code Package.sh} writes the release's tag there, e.g. {@code 0.9.15}) under {@code carlaRoot}.
     */
    public static Optional<String> carlaServer(Path carlaRoot) {
        return version(carlaRoot.resolve("VERSION"));
    }

    /** The first line of a regular file when it reads as a version ({@link RunVersions#VERSION}). */
    private static Optional<String> version(Path file) {
        return firstLine(file).filter(line -> RunVersions.VERSION.matcher(line).matches());
    }

    /** The commit checked out in {@code root}: {@code .git/HEAD}, a detached commit or a ref, loose or packed. */
    static Optional<String> gitCommit(Path root) {
        Path git = root.resolve(".git");
        Optional<String> head = firstLine(git.resolve("HEAD"));
        if (head.isEmpty()) {
            return Optional.empty();
        }
        if (COMMIT.matcher(head.get()).matches()) {
            return head;
        }
        if (!head.get().startsWith("ref: ")) {
            return Optional.empty();
        }
        String ref = head.get().substring("ref: ".length()).trim();
        if (!REF.matcher(ref).matches() || ref.contains("..")) {
            return Optional.empty();
        }
        Optional<String> loose = firstLine(git.resolve(ref)).filter(line -> COMMIT.matcher(line).matches());
        if (loose.isPresent()) {
            return loose;
        }
        return read(git.resolve("packed-refs")).flatMap(packed -> packed.lines()
                .filter(line -> line.endsWith(" " + ref))
                .map(line -> line.substring(0, line.indexOf(' ')))
                .filter(commit -> COMMIT.matcher(commit).matches()).findFirst());
    }

    /** {@code VERSION = '0.9.13'} of {@code <root>/scenario_runner.py}. */
    static Optional<String> scenarioRunner(Path root) {
        return read(root.resolve("scenario_runner.py")).flatMap(text -> {
            Matcher matcher = SCENARIO_RUNNER_VERSION.matcher(text);
            return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
        });
    }

    /**
     * The version in the name of the egg or wheel of {@code carla/dist} under the PythonAPI folder ({@code root} itself
     * or its {@code PythonAPI}): {@code carla-0.9.15-py3.7-linux-x86_64.egg} is {@code 0.9.15}; several that disagree
     * leave it unknown.
     */
    static Optional<String> carlaPythonApi(Path root) {
        for (Path dist : new Path[] { root.resolve("carla/dist"), root.resolve("PythonAPI/carla/dist") }) {
            if (!Files.isDirectory(dist, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            String found = null;
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dist)) {
                for (Path file : files) {
                    Matcher matcher = CARLA_DIST.matcher(file.getFileName().toString());
                    if (!matcher.matches()) {
                        continue;
                    }
                    if (found != null && !found.equals(matcher.group(1))) {
                        return Optional.empty();
                    }
                    found = matcher.group(1);
                }
            } catch (IOException e) {
                return Optional.empty();
            }
            if (found != null) {
                return Optional.of(found);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> firstLine(Path file) {
        return read(file).flatMap(text -> text.lines().findFirst()).map(String::trim);
    }

    /** Up to {@link #MAX_READ} bytes of a regular file, not through a link; empty when there is none. */
    private static Optional<String> read(Path file) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(file)) {
            return Optional.of(new String(in.readNBytes(MAX_READ), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
