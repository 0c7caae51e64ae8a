package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.carla.leaderboard.podruntime.install.Installation;
import org.jboss.logging.Logger;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code pod-runtime install DIR}: the first init container copies the executable into the shared volume. */
@Command(mixinStandardHelpOptions = true, name = "install", description = "Copies the pod-runtime executable into DIR (the shared pod-runtime volume).")
public class InstallCommand implements Callable<Integer> {

    private static final Logger LOG = Logger.getLogger(InstallCommand.class);

    @Parameters(index = "0", paramLabel = "DIR", description = "The folder to install into, e.g. /opt/pod-runtime.")
    Path target;

    @Override
    public Integer call() throws Exception {
        Path installed;
        if (Installation.nativeImage()) {
            Path self = Path.of(ProcessHandle.current().info().command()
                    .orElseThrow(() -> new IllegalStateException("the executable's own path is unknown")));
            installed = Installation.installNative(self, target);
        } else {
            installed = Installation.installJvm(Installation.runningApplication(), target);
        }
        LOG.infof("install: pod-runtime installed as %s (%s mode)", installed, Installation.nativeImage() ? "native" : "JVM");
        return 0;
    }
}
