package org.carla.leaderboard.localstack.iam;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** An IAM policy document: its statements, in order. */
public record Policy(List<Statement> statements) {

    public Policy {
        statements = List.copyOf(statements);
    }

    /** A policy document as JSON or a resolved template gives it ({@code Version}, {@code Statement}). */
    @SuppressWarnings("unchecked")
    public static Policy of(Object document) {
        if (!(document instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("a policy document is an object, not " + document);
        }
        Object statements = map.get("Statement");
        List<Object> list = statements instanceof List<?> many ? (List<Object>) many : List.of(statements);
        var parsed = new ArrayList<Statement>();
        for (Object statement : list) {
            if (!(statement instanceof Map<?, ?> fields)) {
                throw new IllegalArgumentException("a statement is an object, not " + statement);
            }
            parsed.add(Statement.of((Map<String, Object>) fields));
        }
        return new Policy(parsed);
    }

    /** What this evaluator does not understand in the policy: empty when it evaluates it exactly. */
    public List<String> unsupported() {
        var problems = new ArrayList<String>();
        statements.forEach(statement -> statement.unsupported()
                .forEach(problem -> problems.add(statement.label() + ": " + problem)));
        return problems;
    }
}
