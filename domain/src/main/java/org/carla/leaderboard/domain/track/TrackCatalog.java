package org.carla.leaderboard.domain.track;

import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

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
            long phasePk;
            try {
                phasePk = Long.parseLong(phaseKey);
            } catch (NumberFormatException e) {
                problems.add("phase '" + phaseKey + "' is not a phase pk");
                return;
            }
            var leaderboard = config.leaderboards().get(phase.leaderboard());
            if (leaderboard == null) {
                problems.add("phase " + phaseKey + " names unknown leaderboard '" + phase.leaderboard() + "'");
                return;
            }
            if (phase.routes() < 1 || phase.repetitions() < 1 || phase.workerPairs() < 1 || phase.allowedResumes() < 0
                    || phase.deadline().isNegative() || phase.deadline().isZero()) {
                problems.add("phase " + phaseKey + " needs routes, repetitions and worker pairs >= 1, resumes >= 0"
                        + " and a positive deadline");
                return;
            }
            Integer gpus = config.instanceGpus().get(phase.instanceType());
            if (gpus == null || gpus < 1) {
                problems.add("phase " + phaseKey + " runs on instance type '" + phase.instanceType()
                        + "' whose GPUs are not configured (evaluation.instance-gpus.\"" + phase.instanceType()
                        + "\")");
                return;
            }
            byPhase.put(phasePk, new TrackSpec(phase.leaderboard(), phase.track(), leaderboard.bucket(),
                    phase.routesFile(), phase.routes(), phase.repetitions(), phase.workerPairs(), phase.instanceType(),
                    leaderboard.simulatorImage(), leaderboard.leaderboardImage(), config.podRuntimeImage(),
                    leaderboard.renderer(), phase.deadline().toSeconds(), phase.allowedResumes(), phase.hideLogs(),
                    phase.qualifiesFor().orElse(null), phase.thresholds()));
        });
        if (!problems.isEmpty()) {
            throw new IllegalStateException("invalid evaluation configuration: " + String.join("; ", problems));
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
