package org.carla.leaderboard.localstack.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stops a container's process the way the kubelet stops a container: SIGTERM, then SIGKILL once the grace period is
 * over; and, because here there is no container boundary, the same for every descendant it started.
 */
final class ProcessTree {

    private ProcessTree() {
    }

    /** Stops the processes and their descendants; returns once all are gone (bounded by grace + a few seconds). */
    static void stop(List<ProcessHandle> roots, Duration grace) {
        List<ProcessHandle> all = new ArrayList<>();
        for (ProcessHandle root : roots) {
            // Descendants first: once a parent dies its children are re-parented and no longer found through it.
            root.descendants().forEach(all::add);
            all.add(root);
        }
        all.removeIf(handle -> !handle.isAlive());
        if (all.isEmpty()) {
            return;
        }
        all.forEach(ProcessHandle::destroy);
        CompletableFuture<?> gone = CompletableFuture.allOf(all.stream().map(ProcessHandle::onExit)
                .toArray(CompletableFuture[]::new));
        if (!await(gone, grace)) {
            // Children started after the first look are found now, while their parents still live.
            List<ProcessHandle> remaining = new ArrayList<>();
            for (ProcessHandle handle : all) {
                handle.descendants().forEach(remaining::add);
                remaining.add(handle);
            }
            remaining.removeIf(handle -> !handle.isAlive());
            remaining.forEach(ProcessHandle::destroyForcibly);
            await(CompletableFuture.allOf(remaining.stream().map(ProcessHandle::onExit)
                    .toArray(CompletableFuture[]::new)), Duration.ofSeconds(5));
        }
    }

    private static boolean await(CompletableFuture<?> future, Duration timeout) {
        try {
            future.get(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
