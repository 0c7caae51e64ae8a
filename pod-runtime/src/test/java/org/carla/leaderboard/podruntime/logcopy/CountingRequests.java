package org.carla.leaderboard.podruntime.logcopy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the calls an AWS client makes, by operation: one per API call (the SDK's own retries of a call, such as a
 * request on a pooled connection the server had closed, are not separate decisions of the code under test).
 */
final class CountingRequests implements ExecutionInterceptor {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        counts.computeIfAbsent(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME),
                name -> new AtomicInteger()).incrementAndGet();
    }

    int count(String operation) {
        AtomicInteger count = counts.get(operation);
        return count == null ? 0 : count.get();
    }

    int total() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    Map<String, Integer> snapshot() {
        var snapshot = new TreeMap<String, Integer>();
        counts.forEach((name, count) -> snapshot.put(name, count.get()));
        return snapshot;
    }

    void reset() {
        counts.clear();
    }
}
