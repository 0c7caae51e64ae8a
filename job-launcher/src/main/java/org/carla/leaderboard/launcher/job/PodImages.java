package org.carla.leaderboard.launcher.job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunImages.ContainerImage;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * What a started pod ran: each container's image reference and the kubelet's {@code imageID} (the image by digest),
 * from the pod's status — init containers first, then the containers. A container whose image was never pulled has no
 * {@code imageID} yet and is left out; a started pod has pulled every image of its containers.
 */
public final class PodImages {

    private PodImages() {
    }

    /** The images of the Job's pod that started first ({@link PodStart}); empty while none has. */
    public static Optional<RunImages> of(List<Pod> pods, int run) {
        return pods.stream().filter(pod -> PodStart.of(pod).isPresent())
                .min(Comparator.comparing(pod -> PodStart.of(pod).orElseThrow()))
                .map(pod -> new RunImages(run, images(pod)));
    }

    private static List<ContainerImage> images(Pod pod) {
        var images = new ArrayList<ContainerImage>();
        add(images, pod.getStatus().getInitContainerStatuses());
        add(images, pod.getStatus().getContainerStatuses());
        return images;
    }

    private static void add(List<ContainerImage> images, List<ContainerStatus> statuses) {
        if (statuses == null) {
            return;
        }
        for (ContainerStatus status : statuses) {
            if (status.getImageID() != null && !status.getImageID().isEmpty()) {
                images.add(new ContainerImage(status.getName(), status.getImage(), status.getImageID()));
            }
        }
    }
}
