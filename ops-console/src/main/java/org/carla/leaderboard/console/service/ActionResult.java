package org.carla.leaderboard.console.service;

import java.util.List;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What an operator's action did: {@code done} (it changed something), or {@code done-already} (it had been done: nothing
 * changed). A refused action is an error answer instead ({@link ActionRefused}).
 */
@RegisterForReflection
public record ActionResult(String action, String target, String outcome, String message, String operator,
        List<String> moved, List<String> notFound) {

    static ActionResult done(String action, String target, String message, String operator) {
        return new ActionResult(action, target, "done", message, operator, List.of(), List.of());
    }

    static ActionResult doneAlready(String action, String target, String message, String operator) {
        return new ActionResult(action, target, "done-already", message, operator, List.of(), List.of());
    }
}
