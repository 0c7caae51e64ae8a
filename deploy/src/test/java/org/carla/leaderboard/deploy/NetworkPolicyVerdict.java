package org.carla.leaderboard.deploy;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.networking.v1.IPBlock;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;

/**
 * Decides, the way a NetworkPolicy engine does, whether a connection may be opened: a pod that no policy of the
 * direction selects is unrestricted; a selected pod may reach (egress), or be reached by (ingress), only what some
 * rule of a selecting policy allows.
 */
final class NetworkPolicyVerdict {

    /** A pod: its namespace, that namespace's labels, and its own labels. */
    record Pod(String namespace, Map<String, String> namespaceLabels, Map<String, String> labels) {
    }

    /**
     * The other end of a connection: its address and the pod behind it when it is one, with the connection's port and
     * protocol (where it goes: the peer's port for egress, the selected pod's port for ingress).
     */
    record Peer(String ip, int port, String protocol, Pod pod) {

        static Peer address(String ip, int port, String protocol) {
            return new Peer(ip, port, protocol, null);
        }
    }

    private final List<NetworkPolicy> policies;

    NetworkPolicyVerdict(List<NetworkPolicy> policies) {
        this.policies = policies;
    }

    boolean allowsEgress(Pod from, Peer to) {
        return allows(from, "Egress", policy -> rules(policy.getSpec().getEgress()).stream()
                .map(rule -> new Rule(rule.getPorts(), rule.getTo())).toList(), to);
    }

    /** Whether {@code from} may connect to the pod {@code to}, on {@code from}'s port and protocol. */
    boolean allowsIngress(Peer from, Pod to) {
        return allows(to, "Ingress", policy -> rules(policy.getSpec().getIngress()).stream()
                .map(rule -> new Rule(rule.getPorts(), rule.getFrom())).toList(), from);
    }

    /** A rule of either direction: the ports it opens and the peers it admits. */
    private record Rule(List<NetworkPolicyPort> ports, List<NetworkPolicyPeer> peers) {
    }

    private boolean allows(Pod selected, String direction, Function<NetworkPolicy, List<Rule>> rulesOf, Peer peer) {
        List<NetworkPolicy> selecting = selecting(selected, direction);
        if (selecting.isEmpty()) {
            return true;
        }
        return selecting.stream().anyMatch(policy -> rulesOf.apply(policy).stream()
                .anyMatch(rule -> portMatches(rule.ports(), peer) && peersMatch(rule.peers(), policy, peer)));
    }

    /** Whether anything at all may connect to the pod: some ingress rule of a selecting policy exists. */
    boolean allowsAnyIngress(Pod to) {
        List<NetworkPolicy> selecting = selecting(to, "Ingress");
        return selecting.isEmpty() || selecting.stream().anyMatch(policy -> !rules(policy.getSpec().getIngress()).isEmpty());
    }

    private List<NetworkPolicy> selecting(Pod pod, String direction) {
        return policies.stream()
                .filter(policy -> Objects.equals(policy.getMetadata().getNamespace(), pod.namespace()))
                .filter(policy -> selects(policy.getSpec().getPodSelector(), pod.labels()))
                .filter(policy -> types(policy).contains(direction))
                .toList();
    }

    private static List<String> types(NetworkPolicy policy) {
        List<String> types = policy.getSpec().getPolicyTypes();
        if (types != null && !types.isEmpty()) {
            return types;
        }
        // the API's default: Ingress always, Egress when the policy has egress rules
        return policy.getSpec().getEgress() != null && !policy.getSpec().getEgress().isEmpty()
                ? List.of("Ingress", "Egress") : List.of("Ingress");
    }

    private static <R> List<R> rules(List<R> rules) {
        return rules == null ? List.of() : rules;
    }

    private static boolean portMatches(List<NetworkPolicyPort> ports, Peer to) {
        if (ports == null || ports.isEmpty()) {
            return true;
        }
        return ports.stream().anyMatch(port -> {
            String protocol = port.getProtocol() == null ? "TCP" : port.getProtocol();
            if (!protocol.equals(to.protocol())) {
                return false;
            }
            IntOrString number = port.getPort();
            if (number == null) {
                return true;
            }
            if (number.getIntVal() == null) {
                throw new IllegalArgumentException("named ports are not evaluated here: " + number.getStrVal());
            }
            int end = port.getEndPort() == null ? number.getIntVal() : port.getEndPort();
            return to.port() >= number.getIntVal() && to.port() <= end;
        });
    }

    private static boolean peersMatch(List<NetworkPolicyPeer> peers, NetworkPolicy policy, Peer to) {
        if (peers == null || peers.isEmpty()) {
            return true;
        }
        return peers.stream().anyMatch(peer -> peerMatches(peer, policy, to));
    }

    private static boolean peerMatches(NetworkPolicyPeer peer, NetworkPolicy policy, Peer to) {
        if (peer.getIpBlock() != null) {
            return inBlock(peer.getIpBlock(), to.ip());
        }
        if (to.pod() == null) {
            return false; // selectors match pods only
        }
        boolean namespaceMatches = peer.getNamespaceSelector() == null
                ? to.pod().namespace().equals(policy.getMetadata().getNamespace())
                : selects(peer.getNamespaceSelector(), to.pod().namespaceLabels());
        return namespaceMatches && (peer.getPodSelector() == null || selects(peer.getPodSelector(), to.pod().labels()));
    }

    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return true;
        }
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        return selector.getMatchExpressions() == null
                || selector.getMatchExpressions().stream().allMatch(requirement -> satisfies(requirement, labels));
    }

    private static boolean satisfies(LabelSelectorRequirement requirement, Map<String, String> labels) {
        String value = labels.get(requirement.getKey());
        return switch (requirement.getOperator()) {
            case "In" -> value != null && requirement.getValues().contains(value);
            case "NotIn" -> value == null || !requirement.getValues().contains(value);
            case "Exists" -> labels.containsKey(requirement.getKey());
            case "DoesNotExist" -> !labels.containsKey(requirement.getKey());
            default -> throw new IllegalArgumentException("unknown operator " + requirement.getOperator());
        };
    }

    private static boolean inBlock(IPBlock block, String ip) {
        return inCidr(block.getCidr(), ip)
                && (block.getExcept() == null || block.getExcept().stream().noneMatch(except -> inCidr(except, ip)));
    }

    static boolean inCidr(String cidr, String ip) {
        String[] parts = cidr.split("/");
        byte[] network = bytes(parts[0]);
        byte[] address = bytes(ip);
        if (network.length != address.length) {
            return false; // IPv4 and IPv6 never match each other
        }
        int bits = address.length * 8;
        int prefix = Integer.parseInt(parts[1]);
        BigInteger mask = prefix == 0 ? BigInteger.ZERO
                : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).shiftRight(bits - prefix).shiftLeft(bits - prefix);
        return new BigInteger(1, network).and(mask).equals(new BigInteger(1, address).and(mask));
    }

    private static byte[] bytes(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress(); // literals only: no name is looked up
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP literal: " + literal, e);
        }
    }
}
