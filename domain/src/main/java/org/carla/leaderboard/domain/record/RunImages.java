package org.carla.leaderboard.domain.record;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.results.RouteRecordCheck;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a run's pods ran, exactly: each container's image as the Job asked for it and the image the kubelet ran, by its
 * digest (the pod status' {@code imageID}, e.g. {@code docker.io/carlasim/carla@sha256:…}). A tag names whatever was
 * pushed under it last; the digest names the bytes, and a pod that replaced a lost one may have pulled other bytes
 * under the same tag. job-launcher writes the first pod's to the record ({@link SubmissionTable#RUN_IMAGES}) when it
 * has started, and appends each later pod's of the run when it starts (at most {@value #MAX_PODS} pods);
 * results-relay shows them in the final update's metadata.
 *
 * @param run        the run whose pods they are: a record's images of an earlier run are not this run's
 * @param containers pod by pod, in the order they started: init containers first, then the pod's containers, each in
 *                   the pod's order
 */
public record RunImages(int run, List<ContainerImage> containers) {

    /** The longest reference kept as it is: the distribution project's bound on a whole reference. */
    public static final int MAX_REFERENCE = 512;
    /** The most pods of one run whose images are kept: each is a few KB of a record that holds 400 KB. */
    public static final int MAX_PODS = 16;
    /** The attribute's fields, for an update that appends a pod: its run (N), its pods' names and its containers. */
    public static final String RUN = "run";
    public static final String PODS = "pods";
    public static final String CONTAINERS = "containers";

    /**
     * One container's image.
     *
     * @param pod       the pod's name (empty in a record written before pods were named)
     * @param container the container's name
     * @param image     the reference of the pod's spec (a tag or a digest)
     * @param imageId   the kubelet's {@code imageID}: the reference by digest of what ran
     */
    public record ContainerImage(String pod, String container, String image, String imageId) {

        public ContainerImage {
            pod = printable(pod);
            container = printable(container);
            image = printable(image);
            imageId = printable(imageId);
        }
    }

    public RunImages {
        if (run < 1) {
            throw new IllegalArgumentException("a run is numbered from 1, not " + run);
        }
        containers = List.copyOf(containers);
    }

    /**
     * The record's attribute: a map {@code run} (N), {@code pods} (their names, a list of strings) and
     * {@code containers} (a list of maps of strings).
     */
    public AttributeValue attribute() {
        return AttributeValue.fromM(Map.of(RUN, AttributeValue.fromN(Integer.toString(run)), PODS, podsAttribute(),
                CONTAINERS, containersAttribute()));
    }

    /** The names of the pods, in the order they started. */
    public List<String> pods() {
        return containers.stream().map(ContainerImage::pod).distinct().toList();
    }

    /** The attribute's {@code pods}: what an update appends to the record's for another pod of the run. */
    public AttributeValue podsAttribute() {
        return AttributeValue.fromL(pods().stream().map(AttributeValue::fromS).toList());
    }

    /** The attribute's {@code containers}: what an update appends to the record's for another pod of the run. */
    public AttributeValue containersAttribute() {
        List<AttributeValue> list = new ArrayList<>();
        for (Map<String, String> image : containerFields()) {
            var fields = new LinkedHashMap<String, AttributeValue>();
            image.forEach((key, value) -> fields.put(key, AttributeValue.fromS(value)));
            list.add(AttributeValue.fromM(fields));
        }
        return AttributeValue.fromL(list);
    }

    /**
     * The same fields as {@link #attribute()}, as a participant reads them in EvalAI's metadata:
     * {@code {"run": 1, "containers": [{"pod": …, "container": …, "image": …, "image_id": …}, …]}}.
     */
    public Map<String, Object> shown() {
        var fields = new LinkedHashMap<String, Object>();
        fields.put(RUN, run);
        fields.put(CONTAINERS, containerFields());
        return fields;
    }

    private List<Map<String, String>> containerFields() {
        List<Map<String, String>> list = new ArrayList<>();
        for (ContainerImage image : containers) {
            var fields = new LinkedHashMap<String, String>();
            fields.put(POD, image.pod());
            fields.put(CONTAINER, image.container());
            fields.put(IMAGE, image.image());
            fields.put(IMAGE_ID, image.imageId());
            list.add(fields);
        }
        return list;
    }

    /** The images an attribute holds; empty when it holds none or is not one this code wrote. */
    public static Optional<RunImages> of(AttributeValue attribute) {
        if (attribute == null || !attribute.hasM() || attribute.m().get(RUN) == null
                || attribute.m().get(RUN).n() == null || attribute.m().get(CONTAINERS) == null
                || !attribute.m().get(CONTAINERS).hasL()) {
            return Optional.empty();
        }
        try {
            int run = Integer.parseInt(attribute.m().get(RUN).n());
            List<ContainerImage> containers = new ArrayList<>();
            for (AttributeValue value : attribute.m().get(CONTAINERS).l()) {
                if (!value.hasM()) {
                    return Optional.empty();
                }
                containers.add(new ContainerImage(text(value, POD), text(value, CONTAINER), text(value, IMAGE),
                        text(value, IMAGE_ID)));
            }
            return Optional.of(new RunImages(run, containers));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static final String POD = "pod";
    private static final String CONTAINER = "container";
    private static final String IMAGE = "image";
    private static final String IMAGE_ID = "image_id";

    private static String text(AttributeValue map, String key) {
        AttributeValue value = map.m().get(key);
        return value == null || value.s() == null ? "" : value.s();
    }

    /**
     * A reference as it is when printable ASCII of at most {@value #MAX_REFERENCE} characters (a kubelet's always is),
     * else escaped and cut ({@link RouteRecordCheck#printable}): it is shown to the participant and to operators.
     */
    private static String printable(String text) {
        if (text == null) {
            return "";
        }
        boolean plain = text.length() <= MAX_REFERENCE && text.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
        return plain ? text : RouteRecordCheck.printable(text);
    }
}
