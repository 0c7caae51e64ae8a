package org.carla.leaderboard.domain.metrics;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Registers a gauge that reads the object registering it, whatever the registry already holds under the same name and
 * tags. Micrometer hands back a meter already registered under that id, still bound to its earlier object, and
 * Quarkus's root registry is the JVM's {@code Metrics.globalRegistry}, which keeps its meters when an application
 * stops (it clears them in dev mode only). Without the replacement, an application started again in the same JVM —
 * or a bean that a call arriving during the shutdown created anew, which nothing destroys — would leave a gauge that
 * reports an object no longer in use, and the live one would never be read.
 */
public final class LiveGauge {

    private LiveGauge() {
    }

    public static <T> Gauge register(MeterRegistry registry, String name, Tags tags, String description, T source,
            ToDoubleFunction<T> value) {
        for (Meter earlier : registry.find(name).tags(tags).meters()) {
            if (Tags.of(earlier.getId().getTags()).equals(tags)) {
                registry.remove(earlier);
            }
        }
        return Gauge.builder(name, source, value).tags(tags).description(description).strongReference(true)
                .register(registry);
    }
}
