package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The repository's documents stay true to the code: every relative link of every README and of {@code docs/} names a
 * file that exists, and every link to a line ({@code [`Class.member`](path#L12)}, the root README's "where does this
 * behaviour live") lands on a line that still holds that member; and every README reads in a few minutes: at most
 * {@link #README_TEXT} bytes of text outside its tables (a reference table may be as long as what it lists).
 */
class DocsTests {

    static final Path PROJECT = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
    static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
    static final int README_TEXT = 10 * 1024;
    static final Pattern LINE_LINK = Pattern.compile("`([A-Za-z0-9_]+)\\.([A-Za-z0-9_]+)`");

    @Test
    void everyRelativeLinkOfTheDocumentsNamesAFileThatExists() {
        List<String> broken = new ArrayList<>();
        for (Path document : documents()) {
            for (Matcher link = LINK.matcher(read(document)); link.find();) {
                String target = link.group(2);
                if (target.contains("://") || target.startsWith("#") || target.startsWith("mailto:")) {
                    continue;
                }
                Path file = document.getParent().resolve(target.replaceFirst("#.*$", "")).normalize();
                if (!Files.exists(file)) {
                    broken.add(PROJECT.relativize(document) + ": " + target);
                }
            }
        }
        assertThat(broken).as("links to files that do not exist").isEmpty();
    }

    @Test
    void everyLinkToALineLandsOnTheMemberItNames() throws IOException {
        List<String> moved = new ArrayList<>();
        int checked = 0;
        for (Path document : documents()) {
            for (Matcher link = LINK.matcher(read(document)); link.find();) {
                Matcher member = LINE_LINK.matcher(link.group(1));
                Matcher line = Pattern.compile("^([^#]+)#L(\\d+)$").matcher(link.group(2));
                if (!member.matches() || !line.matches()) {
                    continue;
                }
                Path file = document.getParent().resolve(line.group(1)).normalize();
                int number = Integer.parseInt(line.group(2));
                List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
                checked++;
                if (number > lines.size() || !lines.get(number - 1).contains(member.group(2))
                        || !file.getFileName().toString().startsWith(member.group(1))) {
                    moved.add(PROJECT.relativize(document) + ": " + link.group());
                }
            }
        }
        assertThat(checked).as("links to a line in the root README").isPositive();
        assertThat(moved).as("links whose line no longer holds the member they name").isEmpty();
    }

    @Test
    void everyReadmeHoldsAtMostTenKilobytesOfTextOutsideItsTables() {
        List<String> tooLong = new ArrayList<>();
        for (Path document : documents()) {
            Path relative = PROJECT.relativize(document);
            if (!document.getFileName().toString().startsWith("README") || relative.startsWith("docs")) {
                continue;
            }
            long text = read(document).lines().filter(line -> !line.startsWith("|"))
                    .mapToLong(line -> line.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1).sum();
            if (text > README_TEXT) {
                tooLong.add(relative + ": " + text + " bytes");
            }
        }
        assertThat(tooLong).as("READMEs with more than %d bytes of text outside their tables", README_TEXT).isEmpty();
    }

    static List<Path> documents() {
        try (Stream<Path> files = Files.walk(PROJECT)) {
            return files.filter(path -> path.getFileName().toString().endsWith(".md"))
                    .filter(path -> PROJECT.relativize(path).toString().split("/").length == 1
                            || isDocument(PROJECT.relativize(path)))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isDocument(Path relative) {
        String first = relative.getName(0).toString();
        String name = relative.getFileName().toString();
        return !first.startsWith(".") && !relative.toString().contains("/target/")
                && !relative.toString().contains("node_modules")
                && (first.equals("docs") || name.startsWith("README") || relative.startsWith("benchmarks/results"))
                || relative.startsWith(".github/README.md");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
