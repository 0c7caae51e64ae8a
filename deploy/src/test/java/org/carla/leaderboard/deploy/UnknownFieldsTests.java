package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;

/** The guard the manifest tests rely on: a misspelt field is reported with its path, a correct manifest is clean. */
class UnknownFieldsTests {

    @Test
    void aMisspeltFieldDeepInAPodTemplateIsReportedWithItsPath() {
        HasMetadata deployment = Serialization.unmarshal("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: relay, namespace: leaderboard}
                spec:
                  selector: {matchLabels: {app: relay}}
                  template:
                    metadata: {labels: {app: relay}}
                    spec:
                      containers:
                        - name: relay
                          image: relay:1
                          imagePullPolicey: Always
                """);

        assertThat(UnknownFields.of(deployment)).containsExactly("spec.template.spec.containers[0].imagePullPolicey");
    }

    @Test
    void aCorrectManifestHasNoUnknownField() {
        HasMetadata deployment = Serialization.unmarshal("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: relay, namespace: leaderboard}
                spec:
                  selector: {matchLabels: {app: relay}}
                  template:
                    metadata: {labels: {app: relay}}
                    spec:
                      containers:
                        - name: relay
                          image: relay:1
                          imagePullPolicy: Always
                          resources: {limits: {memory: 256Mi}}
                """);

        assertThat(UnknownFields.of(deployment)).isEmpty();
    }
}
