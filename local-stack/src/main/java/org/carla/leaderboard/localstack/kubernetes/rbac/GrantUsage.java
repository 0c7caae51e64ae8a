package org.carla.leaderboard.localstack.kubernetes.rbac;

import org.carla.leaderboard.localstack.ServiceAccount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

/**
 * What the requests the API server allowed used of each grant: for a ServiceAccount's own rules, every permission they
 * spell out (one verb, API group, resource and, when the rule names objects, name) that no allowed request of this
 * server's life exercised. A permission nobody uses is one the account should not hold.
 */
public final class GrantUsage {

    private record Use(String verb, String group, String resource, String subresource, String name) {
    }

    private final Map<RbacPolicy.Grant, Set<Use>> uses = new ConcurrentHashMap<>();

    public void record(RbacPolicy.Grant grant, RequestAttributes request) {
        uses.computeIfAbsent(grant, g -> ConcurrentHashMap.newKeySet()).add(new Use(request.verb(), request.apiGroup(),
                request.combinedResource(), request.subresource(), request.name()));
    }

    /**
     * The account's permissions no allowed request used, each as "verb group/resource [name] (where)"; "" is the core
     * group.
     */
    public List<String> unused(RbacPolicy policy, ServiceAccount account) {
        List<String> unused = new ArrayList<>();
        for (RbacPolicy.Applicable applicable : policy.grantsOf(account)) {
            PolicyRule rule = applicable.rule();
            Set<Use> used = uses.getOrDefault(applicable.grant(), Set.of());
            for (String verb : list(rule.getVerbs())) {
                for (String group : list(rule.getApiGroups())) {
                    for (String resource : list(rule.getResources())) {
                        for (String name : names(rule)) {
                            boolean exercised = used.stream().anyMatch(use -> (verb.equals("*") || verb.equals(use.verb))
                                    && (group.equals("*") || group.equals(use.group))
                                    && RbacAuthorizer.resourceMatches(single(resource), use.resource, use.subresource)
                                    && (name.isEmpty() || name.equals(use.name)));
                            if (!exercised) {
                                unused.add(verb + " " + group + "/" + resource + (name.isEmpty() ? "" : " " + name)
                                        + " (" + applicable.grant().describe() + ")");
                            }
                        }
                    }
                }
            }
            for (String url : list(rule.getNonResourceURLs())) {
                unused.add("non-resource URL " + url + " (" + applicable.grant().describe() + "): not checked");
            }
        }
        return unused;
    }

    private static PolicyRule single(String resource) {
        var rule = new PolicyRule();
        rule.setResources(List.of(resource));
        return rule;
    }

    private static List<String> names(PolicyRule rule) {
        List<String> names = list(rule.getResourceNames());
        return names.isEmpty() ? List.of("") : names;
    }

    private static List<String> list(List<String> values) {
        return values == null ? List.of() : values;
    }
}
