package org.carla.leaderboard.domain.track;

import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.pod.PodEnvironment;

/**
 * The configured tracks, checked once: every phase names a known leaderboard and sensible numbers. A configuration
 * error fails the service at start, not a submission at run time.
 */
public final class TrackCatalog {

    private final EvaluationConfig config;
    private final Map<Long, TrackSpec> byPhase = new TreeMap<>();

    public TrackCatalog(EvaluationConfig config) {
        this.config = config;
        var problems = new ArrayList<String>();
        config.phases().forEach((phaseKey, phase) -> {
            try {
                byPhase.put(phasePk(phaseKey), spec(phaseKey, phase));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        });
        if (!problems.isEmpty()) {
            throw new IllegalStateException("invalid evaluation configuration: " + String.join("; ", problems));
        }
    }

    private static long phasePk(String phaseKey) {
        try {
            return Long.parseLong(phaseKey);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("phase '" + phaseKey + "' is not a phase pk");
        }
    }

    /** @throws IllegalArgumentException saying what is wrong with the phase */
    private TrackSpec spec(String phaseKey, EvaluationConfig.Phase phase) {
        var leaderboard = config.leaderboards().get(phase.leaderboard());
        if (leaderboard == null) {
            throw new IllegalArgumentException("phase " + phaseKey + " names unknown leaderboard '"
                    + phase.leaderboard() + "'");
        }
        if (phase.routes() < 1 || phase.repetitions() < 1 || phase.workerPairs() < 1 || phase.allowedResumes() < 0
                || phase.deadline().isNegative() || phase.deadline().isZero()) {
            throw new IllegalArgumentException("phase " + phaseKey + " needs routes, repetitions and worker pairs"
                    + " >= 1, resumes >= 0 and a positive deadline");
        }
        LeaderboardVersion version = version(phase.leaderboard(), leaderboard);
        checkScenarios(phaseKey, version, phase.scenariosFile());
        Optional<String> schedule = phase.schedule();
        if (schedule.isPresent() && Schedule.parse(schedule.get()).isEmpty()) {
            throw new IllegalArgumentException("phase " + phaseKey + " has schedule '" + schedule.get()
                    + "': dynamic or static");
        }
        if (schedule.isPresent() && !phase.routesFile().startsWith(PodEnvironment.LEADERBOARD_DIR + "/")) {
            // init reads it to make the ledger, where it mounts the Leaderboard volume
            throw new IllegalArgumentException("phase " + phaseKey + " has a schedule, so its routes file is in the "
                    + "Leaderboard volume (" + PodEnvironment.LEADERBOARD_DIR + "/...), was " + phase.routesFile());
        }
        if (phase.pods() < 1 || phase.pods() > SubmissionLayout.MAX_PODS) {
            throw new IllegalArgumentException("phase " + phaseKey + " has " + phase.pods() + " pods: 1 to "
                    + SubmissionLayout.MAX_PODS);
        }
        if (phase.pods() > 1 && schedule.isEmpty()) {
            throw new IllegalArgumentException("phase " + phaseKey + " has " + phase.pods() + " pods, which claim their"
                    + " routes from one route ledger: it needs a schedule (dynamic or static)");
        }
        Integer gpus = config.instanceGpus().get(phase.instanceType());
        if (gpus == null || gpus < 1) {
            throw new IllegalArgumentException("phase " + phaseKey + " runs on instance type '" + phase.instanceType()
                    + "' whose GPUs are not configured (evaluation.instance-gpus.\"" + phase.instanceType() + "\")");
        }
        return new TrackSpec(phase.leaderboard(), phase.track(), leaderboard.bucket(), version, phase.routesFile(),
                phase.scenariosFile().orElse(null), phase.routes(), phase.repetitions(), phase.workerPairs(),
                phase.instanceType(), leaderboard.simulatorImage(), leaderboard.leaderboardImage(),
                config.podRuntimeImage(), leaderboard.renderer(), phase.deadline().toSeconds(), phase.allowedResumes(),
                phase.hideLogs(), phase.qualifiesFor().orElse(null), phase.thresholds(), schedule.orElse(null),
                schedule.isPresent() ? config.routeLedgerTable() : null, phase.pods());
    }

    private static LeaderboardVersion version(String id, EvaluationConfig.Leaderboard leaderboard) {
        try {
            return LeaderboardVersion.parse(leaderboard.version());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("evaluation.leaderboards." + id + ".version: " + e.getMessage());
        }
    }

    /** A 1.0 track gives its scenarios file, a 2.0 track none. */
    private static void checkScenarios(String phaseKey, LeaderboardVersion version, Optional<String> scenariosFile) {
        String key = "evaluation.phases." + phaseKey + ".scenarios-file";
        if (version.takesScenarios() && scenariosFile.filter(file -> !file.isBlank()).isEmpty()) {
            throw new IllegalArgumentException("phase " + phaseKey + " runs Leaderboard " + version + ", whose"
                    + " evaluator requires a scenarios file (--scenarios): " + key + " is not set");
        }
        if (!version.takesScenarios() && scenariosFile.isPresent()) {
            throw new IllegalArgumentException("phase " + phaseKey + " runs Leaderboard " + version + ", whose"
                    + " evaluator takes no scenarios file (its routes file holds the scenarios): remove " + key);
        }
    }

    /** The track of an EvalAI phase; empty for a phase no leaderboard evaluates. */
    public Optional<TrackSpec> forPhase(long phasePk) {
        return Optional.ofNullable(byPhase.get(phasePk));
    }

    /** Whether submissions of this phase need a passed qualifier. */
    public boolean requiresQualification(long phasePk) {
        var phase = config.phases().get(Long.toString(phasePk));
        return phase != null && phase.requiresQualification();
    }

    public Optional<EvaluationConfig.Leaderboard> leaderboard(String leaderboardId) {
        return Optional.ofNullable(config.leaderboards().get(leaderboardId));
    }

    public Map<String, EvaluationConfig.Leaderboard> leaderboards() {
        return config.leaderboards();
    }

    public Map<Long, TrackSpec> tracksByPhase() {
        return Map.copyOf(byPhase);
    }

    /** The GPUs of a node instance type; empty for a type no phase is configured with. */
    public OptionalInt gpus(String instanceType) {
        Integer gpus = instanceType == null ? null : config.instanceGpus().get(instanceType);
        return gpus == null || gpus < 1 ? OptionalInt.empty() : OptionalInt.of(gpus);
    }

    public String qualifierTable() {
        return config.qualifierTable();
    }
}
