package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The repository's documents stay true to the code: every relative link of every README and of {@code docs/} names a
 * file that exists, and every link to a line ({@code [`Class.member`](path#L12)}, the root README's "where does this
 * behaviour live") lands on a line that still holds that member; every {@code `path/File.java:LINE`} of {@code docs/}
 * names a file that exists and a line that declares something; and every README reads in a few minutes: at most
 * {@link #README_TEXT} bytes of text outside its tables (a reference table may be as long as what it lists).
 */
class DocsTests {

    static final Path PROJECT = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
    static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
    static final int README_TEXT = 10 * 1024;
    static final Pattern LINE_LINK = Pattern.compile("`([A-Za-z0-9_]+)\\.([A-Za-z0-9_]+)`");
    /** {@code `path/File.java:12`}, or {@code `:12`}: the same file as the reference before it in that cell. */
    static final Pattern SOURCE_LINE = Pattern.compile("`((?:[\\w.-]+/)*[\\w.-]+\\.java)?:(\\d+)`");
    /** Java statements: a line that starts with one is inside a member, not its declaration. */
    static final Set<String> STATEMENTS = Set.of("return", "throw", "if", "else", "for", "while", "do", "try",
            "catch", "finally", "switch", "case", "default:", "break", "continue", "yield", "var", "super", "this");
    /** A call or an assignment through a dotted name ({@code turns.remove(pk);}, {@code this.x = x;}): a statement. */
    static final Pattern DOTTED_STATEMENT = Pattern.compile("[\\w$]+(?:\\.[\\w$]+)+(?:\\(|\\s*=[^=]).*");

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

    /**
     * A reader who opens a {@code `File.java:LINE`} of {@code docs/} (the behaviour index) lands on the declaration of
     * the method, class or field that does what the row says, not on a blank line, a brace, a comment, a statement
     * inside some other member or a file that is gone.
     */
    @Test
    void everySourceLineOfTheDocsIsADeclaration() throws IOException {
        List<String> stale = new ArrayList<>();
        int checked = 0;
        for (Path document : documents()) {
            if (!PROJECT.relativize(document).startsWith("docs")) {
                continue;
            }
            List<String> text = Files.readAllLines(document);
            for (int row = 0; row < text.size(); row++) {
                String line = text.get(row);
                // A table row's cells each start afresh: a `:LINE` continues the file named before it in its cell.
                for (String cell : line.startsWith("|") ? line.split("\\|") : new String[] { line }) {
                    String file = null;
                    for (Matcher reference = SOURCE_LINE.matcher(cell); reference.find();) {
                        file = reference.group(1) != null ? reference.group(1) : file;
                        if (file == null) {
                            continue; // a `:8080` with no file before it is no reference to a source line
                        }
                        String where = PROJECT.relativize(document) + ":" + (row + 1) + ": " + reference.group();
                        checked++;
                        Path source = PROJECT.resolve(file).normalize();
                        if (!Files.isRegularFile(source)) {
                            stale.add(where + " (" + file + " does not exist)");
                            continue;
                        }
                        List<String> lines = Files.readAllLines(source);
                        int number = Integer.parseInt(reference.group(2));
                        if (number < 1 || number > lines.size()) {
                            stale.add(where + " (" + file + " has " + lines.size() + " lines)");
                        } else if (!isDeclaration(lines.get(number - 1))) {
                            stale.add(where + " (" + file + ":" + number + " is \"" + lines.get(number - 1).strip()
                                    + "\")");
                        }
                    }
                }
            }
        }
        assertThat(checked).as("references to a source line in docs/").isPositive();
        assertThat(stale).as("references in docs/ that do not land on a declaration").isEmpty();
    }

    /** Not blank, not opening with a brace (a member's end, an {@code else}), not a comment, not a statement. */
    static boolean isDeclaration(String line) {
        String code = line.strip();
        if (code.isEmpty() || code.startsWith("}") || code.startsWith("{") || code.startsWith("*")
                || code.startsWith("/*") || code.startsWith("//")) {
            return false;
        }
        return !STATEMENTS.contains(code.split("[\\s(;{.]", 2)[0]) && !DOTTED_STATEMENT.matcher(code).matches();
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
