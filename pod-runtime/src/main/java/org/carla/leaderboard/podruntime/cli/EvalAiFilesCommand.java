package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.results.EvalAiFiles;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pod-runtime evalai-files}: the Leaderboard-cloud {@code generate_results.py}, {@code generate_stdout.py} and
 * {@code generate_metadata.py} in one. Without the merged file the results are 0 and stdout says the submission is
 * initializing (no metadata to copy).
 */
@Command(name = "evalai-files", mixinStandardHelpOptions = true,
        description = "Writes results.json, stdout.txt and metadata.json for EvalAI from a merged checkpoint.")
public class EvalAiFilesCommand implements Callable<Integer> {

    @Option(names = { "-f", "--file-path" }, required = true, description = "The merged checkpoint.")
    Path filePath;

    @Option(names = { "-o", "--out-dir" }, required = true, description = "Where to write the three files.")
    Path outDir;

    @Override
    public Integer call() throws Exception {
        if (!Files.exists(filePath)) {
            System.err.println("evalai-files: no merged checkpoint at " + filePath + "; writing the initial files");
        }
        EvalAiFiles.write(filePath, outDir);
        System.out.println("evalai-files: wrote " + outDir.resolve(EvalAiFiles.RESULTS) + ", "
                + outDir.resolve(EvalAiFiles.STDOUT)
                + (Files.exists(filePath) ? ", " + outDir.resolve(EvalAiFiles.METADATA) : ""));
        return 0;
    }
}
