package org.carla.leaderboard.localstack.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A service jar as a real process: killed with no goodbye, started again on its port, stopped with one. */
class ServiceProcessTests {

    @TempDir
    Path work;

    @Test
    void aKilledServiceSaysNoGoodbyeAndStartsAgainOnItsPort() throws Exception {
        ServiceProcess service = ServiceProcess.start("healthy-service",
                Packaging.JVM.command(jar(), List.of("-XX:TieredStopAtLevel=1")), work, Map.of("some.key", "value"),
                Duration.ofSeconds(60));
        try {
            long first = service.pid();

            service.kill();

            assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(service.isAlive()).isFalse();
            assertThat(work.resolve("shutdowns.txt")).doesNotExist();
            assertThatThrownBy(() -> connect(service.port())).isInstanceOf(ConnectException.class);

            service.start(Duration.ofSeconds(60));

            assertThat(service.isAlive()).isTrue();
            assertThat(service.pid()).isNotEqualTo(first);
            connect(service.port());
            assertThat(Files.readString(work.resolve("config/application.properties"))).contains("some.key=value");
        } finally {
            service.stop();
        }
        assertThat(Files.readAllLines(work.resolve("shutdowns.txt"))).containsExactly("goodbye");
    }

    @Test
    void aServiceThatFindsItsPortTakenStartsOnAnother() throws Exception {
        ServiceProcess service = ServiceProcess.start("healthy-service",
                Packaging.JVM.command(jar(), List.of("-XX:TieredStopAtLevel=1")), work,
                Map.of("healthy.port-taken-once", "true"), Duration.ofSeconds(60));
        try {
            connect(service.port());
            List<String> refused = Files.readAllLines(service.log()).stream()
                    .filter(line -> line.contains("seems to be in use")).toList();
            assertThat(refused).hasSize(1);
            assertThat(refused.get(0)).doesNotContain("Port " + service.port() + " ");
        } finally {
            service.stop();
        }
    }

    private static void connect(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        }
    }

    /** A jar whose manifest runs {@link HealthyService} from this module's test classes. */
    private Path jar() throws Exception {
        Path classes = Path.of(HealthyService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        var manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, HealthyService.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classes.toUri().toString());
        Path jar = work.resolve("healthy-service.jar");
        try (OutputStream out = Files.newOutputStream(jar); var ignored = new JarOutputStream(out, manifest)) {
            // the manifest is the whole jar
        }
        return jar;
    }
}
