package org.carla.leaderboard.console.config;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What the native executable must keep for reflection that no annotation of ours names: the naming strategy of
 * {@code quarkus.jackson.property-naming-strategy}, which Quarkus's Jackson recorder loads by name when the first
 * ObjectMapper is made (without it every API answer is a 500 in native: ClassNotFoundException).
 */
@RegisterForReflection(targets = PropertyNamingStrategies.SnakeCaseStrategy.class)
final class NativeRegistrations {

    private NativeRegistrations() {
    }
}
