package org.carla.leaderboard.domain.status;

import java.util.Collection;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The container protocol's file names, in the {@code containers-status} folder of the logs volume (and under
 * {@code <submission_id>/containers-status/} in S3). Pair {@code i} (from 1) writes {@code agent-i.done},
 * {@code simulator-i.done}, {@code agent-i.crashK}, {@code simulator-i.crashK} (K: how many crash files of that
 * container already exist), and {@code agent-i.startK}, {@code simulator-i.startK} each time the container starts (its
 * restarts, which logcopy holds against the pod's crash budget); logcopy writes {@code logcopy.done} and, on
 * cancellation, {@code simulation.cancel}.
 */
public final class StatusFiles {

    /** The folder of the logs volume (and the S3 sub-prefix) that holds the status files. */
    public static final String DIRECTORY = "containers-status";
    public static final String SIMULATION_CANCEL = "simulation.cancel";
    public static final String LOGCOPY_DONE = "logcopy.done";

    public enum Role {
        AGENT("agent"),
        SIMULATOR("simulator");

        private final String prefix;

        Role(String prefix) {
            this.prefix = prefix;
        }

        public String prefix() {
            return prefix;
        }

        /** The container's name in the Job, which is also the stem of its status files: {@code agent-3}. */
        public String container(int pair) {
            return prefix + "-" + requirePair(pair);
        }

        public Role partner() {
            return this == AGENT ? SIMULATOR : AGENT;
        }
    }

    private StatusFiles() {
    }

    public static String done(Role role, int pair) {
        return role.container(pair) + ".done";
    }

    public static String crash(Role role, int pair, int k) {
        if (k < 0) {
            throw new IllegalArgumentException("crash index must be >= 0, was " + k);
        }
        return role.container(pair) + ".crash" + k;
    }

    /** The file pair container {@code role-pair} writes at its K-th start (K from 0). */
    public static String start(Role role, int pair, int k) {
        if (k < 0) {
            throw new IllegalArgumentException("start index must be >= 0, was " + k);
        }
        return role.container(pair) + ".start" + k;
    }

    /** How many times the container has started: the number of its start files. */
    public static int startCount(Collection<String> names, Role role, int pair) {
        return count(names, role.container(pair) + ".start");
    }

    /**
     * The restarts of the pod's pair containers: each container's starts but its first, summed (what the kubelet's
     * {@code restartCount}s of the same containers add up to).
     */
    public static int restarts(Collection<String> names, int workerPairs) {
        Set<String> present = names.stream().map(StatusFiles::baseName).collect(Collectors.toSet());
        int restarts = 0;
        for (int pair = 1; pair <= workerPairs; pair++) {
            for (Role role : Role.values()) {
                restarts += Math.max(0, startCount(present, role, pair) - 1);
            }
        }
        return restarts;
    }

    /**
     * Written by agent-i when its evaluator has ended claim {@code n} of the route ledger (its checkpoint is complete and
     * readable): logcopy files or releases the claim, then gives the pair its next one.
     */
    public static String claimEnded(int pair, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("claims are numbered from 1, was " + n);
        }
        return Role.AGENT.container(pair) + ".claim" + n;
    }

    /** The highest claim agent-i has said it ended; 0 for none. */
    public static int lastClaimEnded(Collection<String> names, int pair) {
        Pattern claim = Pattern.compile(Pattern.quote(Role.AGENT.container(pair) + ".claim") + "([1-9][0-9]{0,8})");
        int last = 0;
        for (String name : names) {
            Matcher matcher = claim.matcher(name);
            if (matcher.matches()) {
                last = Math.max(last, Integer.parseInt(matcher.group(1)));
            }
        }
        return last;
    }

    /** The K of the next crash file of this container: how many it has written already (0, 1, 2...). */
    public static int crashCount(Collection<String> names, Role role, int pair) {
        return count(names, role.container(pair) + ".crash");
    }

    private static int count(Collection<String> names, String stem) {
        Pattern numbered = Pattern.compile(Pattern.quote(stem) + "[0-9]+");
        return (int) names.stream().filter(name -> numbered.matcher(name).matches()).count();
    }

    /** All 2N done files of the worker pairs. */
    public static boolean allWorkersDone(Collection<String> names, int workerPairs) {
        Set<String> present = Set.copyOf(names);
        for (int pair = 1; pair <= workerPairs; pair++) {
            if (!present.contains(done(Role.AGENT, pair)) || !present.contains(done(Role.SIMULATOR, pair))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The status files' part of the verdict of a run whose Job has ended: every simulator, agent and logcopy done file
     * (2N + 1) is there. Names may be bare or keys. The rest of the verdict (the cancel the relay recorded, the results
     * covering every expected route) is results-relay's, which knows the record; a {@link #SIMULATION_CANCEL} alone
     * proves nothing, since every container of the pod can write it.
     */
    public static boolean allDone(Collection<String> names, int workerPairs) {
        Set<String> present = names.stream().map(StatusFiles::baseName).collect(Collectors.toSet());
        return allWorkersDone(present, workerPairs) && present.contains(LOGCOPY_DONE);
    }

    /** The file name of a path or S3 key: what follows the last {@code /}. */
    public static String baseName(String pathOrKey) {
        int slash = pathOrKey.lastIndexOf('/');
        return slash < 0 ? pathOrKey : pathOrKey.substring(slash + 1);
    }

    private static int requirePair(int pair) {
        if (pair < 1) {
            throw new IllegalArgumentException("worker pairs are numbered from 1, was " + pair);
        }
        return pair;
    }
}
