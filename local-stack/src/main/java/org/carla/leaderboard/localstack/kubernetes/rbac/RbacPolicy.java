package org.carla.leaderboard.localstack.kubernetes.rbac;

import org.carla.leaderboard.localstack.ServiceAccount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;

/**
 * The Roles, ClusterRoles, RoleBindings and ClusterRoleBindings in force, and which rules apply to a user in a
 * namespace, as Kubernetes' {@code DefaultRuleResolver.VisitRulesFor} (pkg/registry/rbac/validation/rule.go) finds
 * them: every ClusterRoleBinding naming the user (or one of its groups), then every RoleBinding of the request's
 * namespace naming it; a RoleBinding may refer to a ClusterRole, whose rules then hold in the binding's namespace only;
 * a ServiceAccount subject without a namespace is the binding's namespace's. A binding whose role does not exist gives
 * no rule and an error, which a refusal mentions. Rules only ever add: nothing denies.
 */
public final class RbacPolicy {

    /** One rule in force for a user, and where it comes from. */
    public record Applicable(Grant grant, PolicyRule rule) {
    }

    /**
     * A rule of a role, as granted by one binding: {@code binding} "RoleBinding leaderboard/x" or "ClusterRoleBinding
     * x", {@code role} "Role leaderboard/x" or "ClusterRole x", the rule's index in the role.
     */
    public record Grant(String binding, String role, int ruleIndex, Subject subject) {
        public String describe() {
            return binding + " of " + role + ", rule " + ruleIndex;
        }
    }

    /** The rules in force for a user in a namespace ("" = cluster scope), and the errors met resolving them. */
    public record Resolved(List<Applicable> rules, List<String> errors) {
    }

    private final Map<String, Role> roles = new HashMap<>();
    private final Map<String, ClusterRole> clusterRoles = new HashMap<>();
    private final List<RoleBinding> roleBindings = new ArrayList<>();
    private final List<ClusterRoleBinding> clusterRoleBindings = new ArrayList<>();

    /** The policy of these objects (others are ignored). */
    public static RbacPolicy of(List<HasMetadata> objects) {
        var policy = new RbacPolicy();
        for (HasMetadata object : objects) {
            if (object instanceof Role role) {
                policy.roles.put(role.getMetadata().getNamespace() + "/" + role.getMetadata().getName(), role);
            } else if (object instanceof ClusterRole role) {
                policy.clusterRoles.put(role.getMetadata().getName(), role);
            } else if (object instanceof RoleBinding binding) {
                policy.roleBindings.add(binding);
            } else if (object instanceof ClusterRoleBinding binding) {
                policy.clusterRoleBindings.add(binding);
            }
        }
        return policy;
    }

    /** Cluster-wide bindings first, then the namespace's, each binding's rules in their order. */
    public Resolved rulesFor(User user, String namespace) {
        List<Applicable> rules = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (ClusterRoleBinding binding : clusterRoleBindings) {
            subjectApplying(user, binding.getSubjects(), "").ifPresent(subject -> add(rules, errors,
                    "ClusterRoleBinding " + binding.getMetadata().getName(), binding.getRoleRef(), "", subject));
        }
        if (!namespace.isEmpty()) {
            for (RoleBinding binding : roleBindings) {
                if (namespace.equals(binding.getMetadata().getNamespace())) {
                    subjectApplying(user, binding.getSubjects(), namespace).ifPresent(subject -> add(rules, errors,
                            "RoleBinding " + namespace + "/" + binding.getMetadata().getName(), binding.getRoleRef(),
                            namespace, subject));
                }
            }
        }
        return new Resolved(rules, errors);
    }

    /**
     * Every rule bound to this ServiceAccount by name (not through a group such as {@code system:serviceaccounts}):
     * its own grants, in any namespace.
     */
    public List<Applicable> grantsOf(ServiceAccount account) {
        List<Applicable> grants = new ArrayList<>();
        List<String> ignored = new ArrayList<>();
        for (ClusterRoleBinding binding : clusterRoleBindings) {
            namesAccount(binding.getSubjects(), account, "").ifPresent(subject -> add(grants, ignored,
                    "ClusterRoleBinding " + binding.getMetadata().getName(), binding.getRoleRef(), "", subject));
        }
        for (RoleBinding binding : roleBindings) {
            String namespace = binding.getMetadata().getNamespace();
            namesAccount(binding.getSubjects(), account, namespace).ifPresent(subject -> add(grants, ignored,
                    "RoleBinding " + namespace + "/" + binding.getMetadata().getName(), binding.getRoleRef(), namespace,
                    subject));
        }
        return grants;
    }

    private void add(List<Applicable> rules, List<String> errors, String binding, RoleRef ref, String namespace,
            Subject subject) {
        List<PolicyRule> found;
        String role;
        if ("Role".equals(ref.getKind())) {
            role = "Role " + namespace + "/" + ref.getName();
            Role resolved = namespace.isEmpty() ? null : roles.get(namespace + "/" + ref.getName());
            if (resolved == null) {
                errors.add("role.rbac.authorization.k8s.io \"" + ref.getName() + "\" not found");
                return;
            }
            found = resolved.getRules();
        } else if ("ClusterRole".equals(ref.getKind())) {
            role = "ClusterRole " + ref.getName();
            ClusterRole resolved = clusterRoles.get(ref.getName());
            if (resolved == null) {
                errors.add("clusterrole.rbac.authorization.k8s.io \"" + ref.getName() + "\" not found");
                return;
            }
            found = resolved.getRules();
        } else {
            errors.add("unsupported role reference kind: \"" + ref.getKind() + "\"");
            return;
        }
        found = found == null ? List.of() : found;
        for (int i = 0; i < found.size(); i++) {
            rules.add(new Applicable(new Grant(binding, role, i, subject), found.get(i)));
        }
    }

    private static java.util.Optional<Subject> subjectApplying(User user, List<Subject> subjects, String namespace) {
        return (subjects == null ? List.<Subject>of() : subjects).stream()
                .filter(subject -> appliesTo(user, subject, namespace)).findFirst();
    }

    private static java.util.Optional<Subject> namesAccount(List<Subject> subjects, ServiceAccount account,
            String namespace) {
        return (subjects == null ? List.<Subject>of() : subjects).stream()
                .filter(subject -> "ServiceAccount".equals(subject.getKind()))
                .filter(subject -> account.user().name().equals(serviceAccountUser(subject, namespace)))
                .findFirst();
    }

    private static boolean appliesTo(User user, Subject subject, String namespace) {
        return switch (Objects.requireNonNullElse(subject.getKind(), "")) {
            case "User" -> user.name().equals(subject.getName());
            case "Group" -> user.groups().contains(subject.getName());
            case "ServiceAccount" -> user.name().equals(serviceAccountUser(subject, namespace));
            default -> false;
        };
    }

    /** The user name of a ServiceAccount subject; its namespace defaults to the binding's. */
    private static String serviceAccountUser(Subject subject, String bindingNamespace) {
        String namespace = subject.getNamespace() == null || subject.getNamespace().isEmpty() ? bindingNamespace
                : subject.getNamespace();
        return namespace.isEmpty() ? null : "system:serviceaccount:" + namespace + ":" + subject.getName();
    }
}
