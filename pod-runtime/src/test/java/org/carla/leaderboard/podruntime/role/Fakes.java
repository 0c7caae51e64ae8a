package org.carla.leaderboard.podruntime.role;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.PostWriter;
import org.carla.leaderboard.podruntime.supervisor.Runner;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;
import org.carla.leaderboard.podruntime.supervisor.Waiter;

/** In-memory parts for the roles' own tests: a status folder, a child, a runner; "time" passes per awaitChange. */
final class Fakes {

    private Fakes() {
    }

    /** Status files in a set; each awaitChange runs the next scripted step (the partner, the child, the clock). */
    static final class Status implements Waiter, PostWriter {
        final Set<String> files = new HashSet<>();
        final List<String> posted = new ArrayList<>();
        final List<Consumer<Status>> script = new ArrayList<>();
        int waits;

        Status with(String... names) {
            files.addAll(List.of(names));
            return this;
        }

        Status then(Consumer<Status> step) {
            script.add(step);
            return this;
        }

        @Override
        public Set<String> present() {
            return Set.copyOf(files);
        }

        @Override
        public void awaitChange(Duration max) throws InterruptedException {
            waits++;
            if (waits > 10_000) {
                throw new AssertionError("the role never ended");
            }
            if (!script.isEmpty()) {
                script.remove(0).accept(this);
            } else {
                Thread.sleep(Math.min(max.toMillis(), 5)); // nothing scripted: real time passes, for the bounded waits
            }
        }

        @Override
        public void post(String statusFile) {
            posted.add(statusFile);
            files.add(statusFile);
        }
    }

    static final class Child implements RunningChild {
        Integer exit;
        boolean stopped;
        Instant lastOutput = Instant.now();

        @Override
        public long pid() {
            return 4242;
        }

        @Override
        public OptionalInt exitCode() {
            return exit == null ? OptionalInt.empty() : OptionalInt.of(exit);
        }

        @Override
        public Instant lastOutput() {
            return lastOutput;
        }

        @Override
        public void stop(Duration grace) {
            stopped = true;
            if (exit == null) {
                exit = 143;
            }
        }
    }

    static final class Starter implements Runner {
        final Child child = new Child();
        final List<ChildSpec> started = new ArrayList<>();

        @Override
        public RunningChild start(ChildSpec spec) {
            started.add(spec);
            return child;
        }
    }
}
