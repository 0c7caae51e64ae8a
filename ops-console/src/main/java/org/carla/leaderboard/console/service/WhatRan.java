package org.carla.leaderboard.console.service;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunVersions;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What the current run ran, exactly: each pod's containers by image digest (as job-launcher recorded them when each pod
 * started) and the evaluation software's versions (as init read them). An earlier run's images or versions are not
 * this run's and are not shown.
 *
 * @param run      the run
 * @param images   pod by pod, in the order they started; empty until the run's first pod started
 * @param versions by name ({@code leaderboard}, {@code scenario_runner}, {@code carla_python_api},
 *                 {@code carla_server}); empty while unknown
 */
@RegisterForReflection
public record WhatRan(int run, List<Image> images, Map<String, String> versions) {

    /** One container of one pod: the reference its spec named and the digest of what the kubelet ran. */
    @RegisterForReflection
    public record Image(String pod, String container, String image, String digest) {
    }

    /** The run's images and versions, each only when it is the run's; {@code null} when neither is. */
    static WhatRan of(int run, RunImages images, RunVersions versions) {
        List<Image> shown = images == null || images.run() != run ? List.of()
                : images.containers().stream().map(c -> new Image(c.pod(), c.container(), c.image(), c.imageId()))
                        .toList();
        Map<String, String> known = versions == null || versions.run() != run ? Map.of() : versions.known();
        return shown.isEmpty() && known.isEmpty() ? null : new WhatRan(run, shown, known);
    }
}
