package org.carla.leaderboard.localstack.kubernetes;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * The scheduler's view of the GPU nodes: at most {@code capacity} pods that request the GPU resource run at once
 * (a submission's pod takes a whole GPU node of its instance type); the others wait, unschedulable, and are placed
 * in creation order as pods end or capacity grows (the cluster autoscaler adding a node). Pods that request no GPU
 * are never held.
 */
final class GpuCapacity {

    /** A pod waiting for a GPU node; {@code place} is told when it gets one and answers whether it took it. */
    record Waiting(long order, String pod, Placement place) {
    }

    @FunctionalInterface
    interface Placement {
        /** False when the pod went away meanwhile: its node goes to the next one. */
        boolean placed();
    }

    private final String resource;
    private int capacity;
    private final Set<String> placed = new HashSet<>();
    private final PriorityQueue<Waiting> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.order(), b.order()));

    GpuCapacity(String resource, int capacity) {
        this.resource = resource;
        this.capacity = requireCapacity(capacity);
    }

    String resource() {
        return resource;
    }

    /** The scheduler's message for a pod that does not fit, as {@code kubectl describe} shows it. */
    String unschedulableMessage() {
        return "0/1 nodes are available: 1 Insufficient " + resource + ".";
    }

    /** Whether any container of the pod (init ones included) requests the resource, in requests or limits. */
    boolean requestedBy(PodSpec spec) {
        List<Container> all = new ArrayList<>();
        if (spec.getInitContainers() != null) {
            all.addAll(spec.getInitContainers());
        }
        if (spec.getContainers() != null) {
            all.addAll(spec.getContainers());
        }
        return all.stream().filter(c -> c.getResources() != null)
                .anyMatch(c -> positive(c.getResources().getRequests()) || positive(c.getResources().getLimits()));
    }

    private boolean positive(Map<String, Quantity> quantities) {
        Quantity quantity = quantities == null ? null : quantities.get(resource);
        return quantity != null && Quantity.getAmountInBytes(quantity).compareTo(BigDecimal.ZERO) > 0;
    }

    /** Places the pod now if a node is free and nobody waits before it; otherwise it waits its turn. */
    synchronized boolean admit(long order, String pod, Placement place) {
        if (placed.size() < capacity && waiting.isEmpty()) {
            placed.add(pod);
            return true;
        }
        waiting.add(new Waiting(order, pod, place));
        return false;
    }

    /** The pod ended, was deleted or stopped waiting: its node (or its place in the queue) is free. */
    void release(String pod) {
        List<Waiting> toPlace;
        synchronized (this) {
            placed.remove(pod);
            waiting.removeIf(w -> w.pod().equals(pod));
            toPlace = next();
        }
        toPlace.forEach(this::tell);
    }

    /** Nodes added or removed; a smaller capacity stops nothing that runs (as removing an idle node). */
    void capacity(int nodes) {
        List<Waiting> toPlace;
        synchronized (this) {
            capacity = requireCapacity(nodes);
            toPlace = next();
        }
        toPlace.forEach(this::tell);
    }

    synchronized int capacity() {
        return capacity;
    }

    /** The pods waiting, first in line first. */
    synchronized List<String> waiting() {
        return waiting.stream().sorted((a, b) -> Long.compare(a.order(), b.order())).map(Waiting::pod).toList();
    }

    private List<Waiting> next() {
        List<Waiting> next = new ArrayList<>();
        while (placed.size() < capacity && !waiting.isEmpty()) {
            Waiting first = waiting.poll();
            placed.add(first.pod());
            next.add(first);
        }
        return next;
    }

    private void tell(Waiting pod) {
        if (!pod.place().placed()) {
            release(pod.pod());
        }
    }

    private static int requireCapacity(int nodes) {
        if (nodes < 0) {
            throw new IllegalArgumentException("GPU capacity must not be negative: " + nodes);
        }
        return nodes;
    }

    /** For tests and logs: {@code capacity}, placed, waiting. */
    @Override
    public synchronized String toString() {
        return resource + ": " + placed.size() + "/" + capacity + " placed, " + waiting.size() + " waiting";
    }
}
