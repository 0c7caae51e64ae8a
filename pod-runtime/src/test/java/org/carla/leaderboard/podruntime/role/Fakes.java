package org.carla.leaderboard.podruntime.role;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

import org.carla.leaderboard.localstack.testing.ManualClock;
import org.carla.leaderboard.podruntime.supervisor.ChildSpec;
import org.carla.leaderboard.podruntime.supervisor.PostWriter;
import org.carla.leaderboard.podruntime.supervisor.Runner;
import org.carla.leaderboard.podruntime.supervisor.RunningChild;
import org.carla.leaderboard.podruntime.supervisor.TerminationSignal;
import org.carla.leaderboard.podruntime.supervisor.Waiter;

/**
 * In-memory parts for the roles' own tests: a status folder, a child, a runner, and a clock that moves only when the
 * role waits. Nothing sleeps: a wait with nothing scripted lets its whole time pass at once.
 */
final class Fakes {

    private Fakes() {
    }

    static PairSupervisor.Parts parts(Status status, Starter runner, TerminationSignal termination) {
        return new PairSupervisor.Parts(status, status, runner, termination, status.clock);
    }

    /** Time that passes only when told to. */
    static final class Time extends ManualClock {
        Time() {
            super(Instant.parse("2025-01-01T00:00:00Z"));
        }
    }

    /** Status files in a set; each awaitChange runs the next scripted step (the partner, the child) at once. */
    static final class Status implements Waiter, PostWriter {
        final Time clock = new Time();
        final Set<String> files = new HashSet<>();
        final List<String> posted = new ArrayList<>();
        final List<Consumer<Status>> script = new ArrayList<>();
        /** Files that appear just after the next look: what a container sees when it looks a moment too early. */
        final Set<String> appearingAfterTheNextLook = new HashSet<>();
        int waits;

        Status with(String... names) {
            files.addAll(List.of(names));
            return this;
        }

        Status then(Consumer<Status> step) {
            script.add(step);
            return this;
        }

        /** The pod ends at the next wait after the steps before: the kubelet's SIGTERM, once logcopy has ended. */
        Status thenThePodEnds(TerminationSignal termination) {
            return then(s -> termination.request("SIGTERM"));
        }

        @Override
        public Set<String> present() {
            var seen = Set.copyOf(files);
            files.addAll(appearingAfterTheNextLook);
            appearingAfterTheNextLook.clear();
            return seen;
        }

        @Override
        public void awaitChange(Duration max) {
            waits++;
            if (waits > 10_000) {
                throw new AssertionError("the role never ended");
            }
            if (!script.isEmpty()) {
                script.remove(0).accept(this);
            } else {
                clock.advance(max); // nothing scripted: the whole wait passes, for the bounded waits
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
        Instant lastOutput;

        Child(Clock clock) {
            this.lastOutput = clock.instant();
        }

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
        final Child child;
        final List<ChildSpec> started = new ArrayList<>();

        Starter(Clock clock) {
            this.child = new Child(clock);
        }

        @Override
        public RunningChild start(ChildSpec spec) {
            started.add(spec);
            return child;
        }
    }
}
