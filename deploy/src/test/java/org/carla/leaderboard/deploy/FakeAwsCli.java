package org.carla.leaderboard.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The AWS CLI as deploy/'s scripts call it, answering from files (src/test/resources/fake-aws/aws): a folder holding an
 * executable {@code aws}, to put first on the scripts' PATH, and the answers it gives.
 */
final class FakeAwsCli {

    private final Path folder;

    FakeAwsCli(Path folder) {
        this.folder = folder;
        try (InputStream script = FakeAwsCli.class.getResourceAsStream("/fake-aws/aws")) {
            Path aws = folder.resolve("aws");
            Files.copy(script, aws);
            aws.toFile().setExecutable(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path folder() {
        return folder;
    }

    /** describe-stacks of the stack: its outputs, as "key TAB value" lines. */
    FakeAwsCli stackOutputs(String stack, Map<String, String> outputs) {
        return answer("stack." + stack, outputs.entrySet().stream().map(e -> e.getKey() + "\t" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n")));
    }

    /** The region's AWS-managed prefix list of the service (e.g. com.amazonaws.eu-west-1.s3) and its entries. */
    FakeAwsCli prefixList(String name, String id, List<String> cidrs) {
        answer("prefix-list." + name, id + "\n");
        return answer("entries." + id, String.join("\t", cidrs) + "\n");
    }

    /** A prefix list that does not exist: the CLI prints "None" for the query of a missing element. */
    FakeAwsCli noPrefixList(String name) {
        return answer("prefix-list." + name, "None\n");
    }

    /** Every call made so far, one line of arguments each. */
    List<String> calls() {
        try {
            Path calls = folder.resolve("calls");
            return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private FakeAwsCli answer(String name, String text) {
        try {
            Files.writeString(folder.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }
}
