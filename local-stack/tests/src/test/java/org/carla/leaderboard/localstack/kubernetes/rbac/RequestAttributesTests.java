package org.carla.leaderboard.localstack.kubernetes.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Requests read as the API server's RequestInfoFactory reads them (requestinfo.go). */
class RequestAttributesTests {

    @Test
    void verbsComeFromTheMethodAndWhetherTheRequestNamesAnObject() {
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs/team-1")).isEqualTo(
                new RequestAttributes(true, "/apis/batch/v1/namespaces/submissions/jobs/team-1", "get", "batch", "v1",
                        "submissions", "jobs", "", "team-1"));
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs?labelSelector=a%3Db").verb()).isEqualTo("list");
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs?watch=true&resourceVersion=4").verb())
                .isEqualTo("watch");
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs?watch=false").verb()).isEqualTo("list");
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs?watch=0").verb()).isEqualTo("list");
        assertThat(of("GET", "/apis/batch/v1/namespaces/submissions/jobs?watch=1").verb()).isEqualTo("watch");
        assertThat(of("POST", "/apis/batch/v1/namespaces/submissions/jobs").verb()).isEqualTo("create");
        assertThat(of("PUT", "/apis/batch/v1/namespaces/submissions/jobs/j").verb()).isEqualTo("update");
        assertThat(of("PATCH", "/apis/batch/v1/namespaces/submissions/jobs/j").verb()).isEqualTo("patch");
        assertThat(of("DELETE", "/apis/batch/v1/namespaces/submissions/jobs/j").verb()).isEqualTo("delete");
        assertThat(of("DELETE", "/api/v1/namespaces/submissions/pods?labelSelector=x").verb())
                .isEqualTo("deletecollection");
        assertThat(of("GET", "/api/v1/watch/namespaces/submissions/pods").verb()).isEqualTo("watch");
    }

    @Test
    void aListOrWatchSelectingOneNameByFieldIsAboutThatName() {
        var watch = of("GET", "/apis/coordination.k8s.io/v1/namespaces/leaderboard/leases"
                + "?fieldSelector=metadata.name%3Dresults-relay&watch=true");
        assertThat(watch.verb()).isEqualTo("watch");
        assertThat(watch.name()).isEqualTo("results-relay");
        assertThat(of("GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3D%3Dp,status.phase%3DRunning")
                .name()).isEqualTo("p");
        assertThat(of("GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%21%3Dp").name()).isEmpty();
    }

    @Test
    void subresourcesNamespacesAndTheCoreGroup() {
        var status = of("PUT", "/apis/batch/v1/namespaces/submissions/jobs/j/status");
        assertThat(status.resource()).isEqualTo("jobs");
        assertThat(status.subresource()).isEqualTo("status");
        assertThat(status.combinedResource()).isEqualTo("jobs/status");
        var log = of("GET", "/api/v1/namespaces/submissions/pods/p/log?container=agent-1");
        assertThat(log.apiGroup()).isEmpty();
        assertThat(log.combinedResource()).isEqualTo("pods/log");
        assertThat(log.verb()).isEqualTo("get");
        var namespace = of("GET", "/api/v1/namespaces/leaderboard");
        assertThat(namespace.namespace()).isEqualTo("leaderboard");
        assertThat(namespace.resource()).isEqualTo("namespaces");
        assertThat(namespace.name()).isEqualTo("leaderboard");
        var finalize = of("PUT", "/api/v1/namespaces/leaderboard/finalize");
        assertThat(finalize.resource()).isEqualTo("namespaces");
        assertThat(finalize.subresource()).isEqualTo("finalize");
        assertThat(of("GET", "/api/v1/nodes").namespace()).isEmpty();
    }

    @Test
    void pathsOutsideTheApiAreNonResourceRequests() {
        var version = of("GET", "/version");
        assertThat(version.resourceRequest()).isFalse();
        assertThat(version.verb()).isEqualTo("get");
        assertThat(of("GET", "/apis").resourceRequest()).isFalse();
        assertThat(of("GET", "/apis/batch").resourceRequest()).isFalse();
        assertThat(of("GET", "/apis/batch/v1").resourceRequest()).isFalse();
        assertThat(of("GET", "/api/v1").resourceRequest()).isFalse();
        assertThat(of("GET", "/api/v1/nodes").resourceRequest()).isTrue();
    }

    private static RequestAttributes of(String method, String target) {
        return RequestAttributes.of(method, target);
    }
}
