package org.carla.leaderboard.launcher.job;

import java.util.ArrayList;
import java.util.List;

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

    /** The images of a started pod ({@link PodStart#of}) of the run. */
    public static RunImages of(Pod pod, int run) {
        return new RunImages(run, images(pod));
    }

    private static List<ContainerImage> images(Pod pod) {
        var images = new ArrayList<ContainerImage>();
        String name = pod.getMetadata().getName();
        add(images, name, pod.getStatus().getInitContainerStatuses());
        add(images, name, pod.getStatus().getContainerStatuses());
        return images;
    }

    private static void add(List<ContainerImage> images, String pod, List<ContainerStatus> statuses) {
        if (statuses == null) {
            return;
        }
        for (ContainerStatus status : statuses) {
            if (status.getImageID() != null && !status.getImageID().isEmpty()) {
                images.add(new ContainerImage(pod, status.getName(), status.getImage(), status.getImageID()));
            }
        }
    }
}
