package org.carla.leaderboard.domain.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.record.RunImages.ContainerImage;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class RunImagesTests {

    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    @Test
    void theRecordsAttributeReadsBackAsTheSameImagesInTheSameOrder() {
        var images = new RunImages(2, List.of(
                new ContainerImage("job-r2-abcde", "init", "registry.example/pod-runtime:1.4",
                        "registry.example/pod-runtime@" + DIGEST),
                new ContainerImage("job-r2-abcde", "agent-1", "team/agent:latest", "docker.io/team/agent@" + DIGEST),
                new ContainerImage("job-r2-fghij", "agent-1", "team/agent:latest", "docker.io/team/agent@" + DIGEST)));

        assertThat(RunImages.of(images.attribute())).contains(images);
        assertThat(images.pods()).containsExactly("job-r2-abcde", "job-r2-fghij");
        assertThat(images.attribute().m().get("pods").l()).extracting(AttributeValue::s)
                .containsExactly("job-r2-abcde", "job-r2-fghij");
    }

    @Test
    void theParticipantReadsTheRecordsFieldsInTheMetadata() throws Exception {
        var images = new RunImages(1, List.of(new ContainerImage("job-r1-abcde", "agent-1", "team/agent:v2",
                "team/agent@" + DIGEST)));

        String shown = ResultsJson.mapper().writeValueAsString(images.shown());

        assertThat(shown).isEqualTo("{\"run\":1,\"containers\":[{\"pod\":\"job-r1-abcde\",\"container\":\"agent-1\","
                + "\"image\":\"team/agent:v2\",\"image_id\":\"team/agent@" + DIGEST + "\"}]}");
        var recorded = images.attribute().m().get("containers").l().get(0).m();
        assertThat(recorded.keySet()).containsExactlyInAnyOrder("pod", "container", "image", "image_id");
    }

    @Test
    void aHostileReferenceIsKeptPrintableAndBounded() {
        String hostile = "team/agent:x\u0000\n$(reboot)" + "y".repeat(2000);

        var image = new ContainerImage("job-r1-abcde", "agent-1", hostile, null);

        assertThat(image.image()).doesNotContain("\u0000", "\n").startsWith("team/agent:x\\u0000\\u000a$(reboot)")
                .hasSizeLessThan(300);
        assertThat(image.imageId()).isEmpty();
    }

    @Test
    void aRecordWrittenBeforePodsWereNamedReadsWithAnEmptyPod() {
        var container = AttributeValue.fromM(Map.of("container", AttributeValue.fromS("agent-1"),
                "image", AttributeValue.fromS("team/agent:v1"), "image_id", AttributeValue.fromS("team/agent@" + DIGEST)));

        var images = RunImages.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("1"),
                "containers", AttributeValue.fromL(List.of(container)))));

        assertThat(images).contains(new RunImages(1, List.of(new ContainerImage("", "agent-1", "team/agent:v1",
                "team/agent@" + DIGEST))));
    }

    @Test
    void anAttributeThisCodeDidNotWriteHoldsNoImages() {
        assertThat(RunImages.of(null)).isEmpty();
        assertThat(RunImages.of(AttributeValue.fromS("docker.io/team/agent"))).isEmpty();
        assertThat(RunImages.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromS("one"),
                "containers", AttributeValue.fromL(List.of()))))).isEmpty();
        assertThat(RunImages.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("0"),
                "containers", AttributeValue.fromL(List.of()))))).isEmpty();
    }
}
