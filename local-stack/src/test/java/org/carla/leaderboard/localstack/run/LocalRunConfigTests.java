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

    @Test
    void aNativeRunStartsTheServicesAndPodRuntimeAsTheirExecutablesAndAJvmRunFromTheirJars() throws Exception {
        Path project = Files.createDirectories(work.resolve("project"));
        Path service = Files.createDirectories(project.resolve("ingest-service/target"))
                .resolve("ingest-service-2.0.0-runner");
        Path podRuntime = Files.createDirectories(project.resolve("pod-runtime/target"))
                .resolve("pod-runtime-2.0.0-runner");
        for (Path executable : java.util.List.of(service, podRuntime)) {
            Files.writeString(executable, "");
        }
        Files.createDirectories(project.resolve("ingest-service/target/ingest-service-2.0.0-native-image-source-jar"));

        var nativeRun = LocalRunConfig.demo(project, work.resolve("native"), Packaging.NATIVE);
        var jvmRun = LocalRunConfig.demo(project, work.resolve("jvm"), Packaging.JVM);

        assertThat(nativeRun.serviceCommand("ingest-service")).containsExactly(service.toString());
        assertThat(nativeRun.stackSettings().get("local-stack.images.pod-runtime.command./usr/local/bin/pod-runtime"))
                .isEqualTo("[\"" + podRuntime + "\"]");
        assertThat(nativeRun.program("job-launcher")).doesNotExist();
        assertThat(jvmRun.serviceCommand("ingest-service")).endsWith("-jar",
                project.resolve("ingest-service/target/quarkus-app/quarkus-run.jar").toString());
        assertThat(Packaging.parse("native")).isEqualTo(Packaging.NATIVE);
        assertThat(Packaging.parse("")).isEqualTo(Packaging.JVM);
    }
}
