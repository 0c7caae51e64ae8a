package org.carla.leaderboard.localstack.kubernetes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;

/**
 * A pod's conditions as the scheduler and the kubelet write them: {@code PodScheduled} (False, Unschedulable, with
 * the scheduler's message while no node fits), then {@code PodReadyToStartContainers}, {@code Initialized} (False
 * while init containers have not all succeeded: "containers with incomplete status: [...]"), {@code ContainersReady}
 * and {@code Ready} (False while a container does not run: "containers with unready status: [...]", or
 * {@code PodCompleted} once the pod succeeded). A condition's {@code lastTransitionTime} changes only with its status.
 */
final class PodConditions {

    /** What the conditions are computed from. */
    record Facts(boolean scheduled, String unschedulableMessage, List<String> initIncomplete, List<String> unready,
            boolean succeeded) {
    }

    private final Map<String, String> since = new HashMap<>();
    private final Map<String, String> status = new HashMap<>();

    List<PodCondition> of(Facts facts) {
        List<PodCondition> conditions = new ArrayList<>();
        if (!facts.scheduled()) {
            conditions.add(condition("PodScheduled", false, "Unschedulable", facts.unschedulableMessage()));
            return conditions;
        }
        conditions.add(condition("PodReadyToStartContainers", true, null, null));
        conditions.add(facts.initIncomplete().isEmpty() ? condition("Initialized", true, null, null)
                : condition("Initialized", false, "ContainersNotInitialized",
                        "containers with incomplete status: " + names(facts.initIncomplete())));
        for (String type : List.of("Ready", "ContainersReady")) {
            if (facts.succeeded()) {
                conditions.add(condition(type, false, "PodCompleted", null));
            } else if (facts.unready().isEmpty()) {
                conditions.add(condition(type, true, null, null));
            } else {
                conditions.add(condition(type, false, "ContainersNotReady",
                        "containers with unready status: " + names(facts.unready())));
            }
        }
        conditions.add(condition("PodScheduled", true, null, null));
        return conditions;
    }

    /**
     * {@code DisruptionTarget} True: the pod is about to be terminated for a disruption (the pod garbage collector for
     * a lost node, the kubelet for an eviction or a node shutdown), what a pod failure policy can Ignore.
     */
    PodCondition disruptionTarget(String reason, String message) {
        return condition("DisruptionTarget", true, reason, message);
    }

    private PodCondition condition(String type, boolean isTrue, String reason, String message) {
        String value = isTrue ? "True" : "False";
        if (!value.equals(status.put(type, value))) {
            since.put(type, JobStatusWriter.now());
        }
        return new PodConditionBuilder().withType(type).withStatus(value).withReason(reason).withMessage(message)
                .withLastTransitionTime(since.get(type)).build();
    }

    private static String names(List<String> names) {
        return "[" + String.join(" ", names) + "]";
    }
}
