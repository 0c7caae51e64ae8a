package org.carla.leaderboard.localstack.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerClassPathTests {

    @TempDir
    Path target;

    @Test
    void aServerModuleSeenAsItsClassFolderRunsFromTheJarPackagedFromThem() throws Exception {
        // As Quarkus's tests see a reactor module: target/classes, with the jar packaged beside it.
        Path classes = Files.createDirectories(target.resolve("classes/org/example"));
        Path launcher = Files.writeString(classes.resolve("Launcher.class"), "");
        Path jar = Files.writeString(target.resolve("local-stack-server-elasticmq-1.0.0-SNAPSHOT.jar"), "");
        Files.writeString(target.resolve("local-stack-server-s3proxy-1.0.0-SNAPSHOT.jar"), "");
        Instant built = Instant.parse("2026-12-03T06:00:00Z");
        Files.setLastModifiedTime(launcher, FileTime.from(built));
        Files.setLastModifiedTime(jar, FileTime.from(built.plusSeconds(2)));

        assertThat(ServerClassPath.packaged(target.resolve("classes"), "elasticmq")).isEqualTo(jar);
        assertThat(ServerClassPath.packaged(target.resolve("classes"), "dynamodb-local")).as("no jar of its own")
                .isEqualTo(target.resolve("classes"));
        assertThat(ServerClassPath.packaged(jar, "elasticmq")).isEqualTo(jar);

        Files.setLastModifiedTime(launcher, FileTime.from(built.plusSeconds(60)));
        assertThat(ServerClassPath.packaged(target.resolve("classes"), "elasticmq"))
                .as("a class compiled after the jar was packaged (an IDE's build)").isEqualTo(target.resolve("classes"));
    }
}
