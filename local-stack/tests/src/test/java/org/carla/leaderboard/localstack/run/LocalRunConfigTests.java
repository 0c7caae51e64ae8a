package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.route.Route;
import org.carla.leaderboard.domain.route.RoutesFile;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.localstack.standin.EvaluatorScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local run's images are readable by any container user: the Job runner may run a container as another user. */
class LocalRunConfigTests {

    @TempDir
    Path work;

    @Test
    void theStandInsClassPathHoldsCopiesOfItsJarsInTheImagesFolderAndTheKnobsAreWorldWritable() throws Exception {
        var config = LocalRunConfig.demo(Path.of("../..").toAbsolutePath().normalize(), work);

        config.prepare();

        var entries = Arrays.stream(config.standInClassPath().split(File.pathSeparator)).map(Path::of).toList();
        assertThat(entries).anySatisfy(entry -> assertThat(entry.getFileName().toString()).contains("jackson-databind"));
        assertThat(entries).filteredOn(Files::isRegularFile).allSatisfy(jar -> {
            assertThat(jar).startsWith(work.resolve("images/standins"));
            assertThat((Integer) Files.getAttribute(jar, "unix:mode") & 0777).isEqualTo(0644);
        });
        assertThat((Integer) Files.getAttribute(config.knobsDir(), "unix:mode") & 0777).isEqualTo(0777);
        assertThat(config.stackSettings().get("local-stack.images.participant.override-env.EVALUATOR_COMMAND"))
                .contains(config.standInClassPath()).endsWith(" ${LEADERBOARD_ROOT}/" + EvaluatorScript.PATH);
    }

    /** Each leaderboard's image is derived from the tracks: its version's evaluator, its tracks' routes and scenarios. */
    @Test
    void eachLeaderboardsImageHoldsItsVersionsEvaluatorAndItsTracksFiles() throws Exception {
        var config = LocalRunConfig.demo(Path.of("../..").toAbsolutePath().normalize(), work);
        config.prepare();
        var settings = config.stackSettings();

        config.tracks().leaderboards().forEach((id, leaderboard) -> {
            String image = settings.get("local-stack.images." + id + ".image");
            assertThat(leaderboard.leaderboardImage()).matches(image);
            Path root = Path.of(settings.get("local-stack.images." + id + ".env.LEADERBOARD_ROOT"));
            assertThat(root.resolve(EvaluatorScript.PATH)).content()
                    .contains("# branch: " + LeaderboardVersion.parse(leaderboard.version()).branch());
        });
        for (var phase : config.tracks().phases().values()) {
            var leaderboard = config.tracks().leaderboards().get(phase.leaderboard());
            var version = LeaderboardVersion.parse(leaderboard.version());
            Path root = Path.of(settings.get("local-stack.images." + phase.leaderboard() + ".env.LEADERBOARD_ROOT"));
            Path inVolume = Path.of(PodEnvironment.LEADERBOARD_DIR);
            RoutesFile routes = RoutesFile.read(root.resolve(inVolume.relativize(Path.of(phase.routesFile()))));
            assertThat(routes.routes()).extracting(Route::id)
                    .isEqualTo(LocalRunConfig.routeIds(version, phase.routes())).hasSize(phase.routes());
            phase.scenariosFile().ifPresent(scenarios -> assertThat(root.resolve(inVolume.relativize(
                    Path.of(scenarios)))).isRegularFile());
        }
        assertThat(LocalRunConfig.routeIds(LeaderboardVersion.V1_0, 4)).as("not the routes' positions")
                .containsExactly("1", "2", "3", "4");
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

        var identity = java.util.List.of("-Dkubernetes.auth.tryServiceAccount=true");
        assertThat(nativeRun.serviceCommand("ingest-service", identity)).as("the options a native executable takes too")
                .containsExactly(service.toString(), "-Xmx256m", "-Dkubernetes.auth.tryServiceAccount=true");
        assertThat(nativeRun.stackSettings().get("local-stack.images.pod-runtime.command./usr/local/bin/pod-runtime"))
                .isEqualTo("[\"" + podRuntime + "\"]");
        assertThat(nativeRun.program("job-launcher")).doesNotExist();
        assertThat(jvmRun.serviceCommand("ingest-service", identity)).contains("-XX:+UseSerialGC")
                .endsWith("-Xmx256m", "-Dkubernetes.auth.tryServiceAccount=true", "-jar",
                        project.resolve("ingest-service/target/quarkus-app/quarkus-run.jar").toString());
        assertThat(Packaging.parse("native")).isEqualTo(Packaging.NATIVE);
        assertThat(Packaging.parse("")).isEqualTo(Packaging.JVM);
    }
}
