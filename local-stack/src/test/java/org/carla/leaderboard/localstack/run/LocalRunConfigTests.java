package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local run's images are readable by any container user: the Job runner may run a container as another user. */
class LocalRunConfigTests {

    @TempDir
    Path work;

    @Test
    void theStandInsClassPathHoldsCopiesOfItsJarsInTheImagesFolderAndTheKnobsAreWorldWritable() throws Exception {
        var config = LocalRunConfig.demo(Path.of("..").toAbsolutePath().normalize(), work);

        config.prepare();

        var entries = Arrays.stream(config.standInClassPath().split(File.pathSeparator)).map(Path::of).toList();
        assertThat(entries).anySatisfy(entry -> assertThat(entry.getFileName().toString()).contains("jackson-databind"));
        assertThat(entries).filteredOn(Files::isRegularFile).allSatisfy(jar -> {
            assertThat(jar).startsWith(work.resolve("images/standins"));
            assertThat((Integer) Files.getAttribute(jar, "unix:mode") & 0777).isEqualTo(0644);
        });
        assertThat((Integer) Files.getAttribute(config.knobsDir(), "unix:mode") & 0777).isEqualTo(0777);
        assertThat(config.stackSettings().get("local-stack.images.participant.override-env.EVALUATOR_COMMAND"))
                .contains(config.standInClassPath());
    }
}
