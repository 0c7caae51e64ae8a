package org.carla.leaderboard.localstack.kubernetes;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.kubernetes.rbac.ApiStatus;
import org.carla.leaderboard.localstack.kubernetes.rbac.GrantUsage;
import org.carla.leaderboard.localstack.kubernetes.rbac.RbacAuthorizer;
import org.carla.leaderboard.localstack.kubernetes.rbac.RequestAttributes;
import org.carla.leaderboard.localstack.kubernetes.rbac.User;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * fabric8's CRUD dispatcher behind what a real API server does first, in its order: authentication (a bearer token
 * it issued, else anonymous; a token it does not know is 401), authorization ({@link RbacAuthorizer}: 403 as
 * Kubernetes answers it), then admission of writes: NamespaceLifecycle (a create, update or patch into a namespace
 * that does not exist is 404 {@code namespaces "x" not found}; deletes and reads are not admitted, so they find
 * nothing there) and the Job validation the controller relies on ({@link JobValidation}: completion mode,
 * completions and parallelism, a {@code podFailurePolicy} needing {@code restartPolicy: Never}; checked on create and
 * update). Also {@code status} is a subresource of the built-in
 * kinds that have one in a cluster, so a plain update leaves the status alone. Before all that, a test may have made it
 * unavailable for some requests ({@link #unavailable}): 503, as while it cannot serve.
 */
final class ApiServerDispatcher extends KubernetesCrudDispatcher {

    private static final Pattern BUILT_IN_WITH_STATUS = Pattern.compile(
            "^/(?:api/v1|apis/(?:batch|apps)/v1)/(?:namespaces/[^/]+/)?"
                    + "(?:pods|jobs|cronjobs|deployments|statefulsets|replicasets|daemonsets)(?:[/?].*)?$");
    private static final String BEARER = "Bearer ";

    private final Map<String, User> tokens = new ConcurrentHashMap<>();
    private final List<Unavailable> unavailable = new CopyOnWriteArrayList<>();
    private final RbacAuthorizer authorizer;
    private final GrantUsage usage;

    ApiServerDispatcher(RbacAuthorizer authorizer, GrantUsage usage) {
        super(List.of());
        this.authorizer = authorizer;
        this.usage = usage;
    }

    /** From now on, this bearer token authenticates as {@code user}. */
    void issue(String token, User user) {
        tokens.put(token, user);
    }

    /** The next {@code times} requests of {@code verb} on {@code group/resource} are answered 503 (unavailable). */
    void unavailable(String verb, String apiGroup, String resource, int times) {
        unavailable.removeIf(window -> window.left().get() == 0);
        unavailable.add(new Unavailable(verb, apiGroup, resource, new AtomicInteger(times)));
    }

    @Override
    public boolean isStatusSubresourceEnabledForResource(String path) {
        return BUILT_IN_WITH_STATUS.matcher(path).matches() || super.isStatusSubresourceEnabledForResource(path);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        RequestAttributes attributes = RequestAttributes.of(request.getMethod(), request.getPath());
        if (unavailable.stream().anyMatch(window -> window.takes(attributes))) {
            return ApiStatus.unavailable();
        }
        Optional<User> user = authenticate(request.getHeader("Authorization"));
        if (user.isEmpty()) {
            return ApiStatus.unauthorized();
        }
        RbacAuthorizer.Decision decision = authorizer.authorize(user.get(), attributes);
        if (!decision.allowed()) {
            return ApiStatus.forbidden(user.get(), attributes, decision.errors());
        }
        decision.grant().ifPresent(grant -> usage.record(grant, attributes));
        return admit(request, attributes).orElseGet(() -> super.dispatch(request));
    }

    private Optional<User> authenticate(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            return Optional.of(User.ANONYMOUS);
        }
        if (!authorization.startsWith(BEARER)) {
            return Optional.empty();
        }
        return Optional.ofNullable(tokens.get(authorization.substring(BEARER.length()).trim()));
    }

    /** The admission plugins' refusal, if any; empty lets the request through to storage. */
    private Optional<MockResponse> admit(RecordedRequest request, RequestAttributes attributes) {
        if (!attributes.writes() || attributes.namespace().isEmpty()) {
            return Optional.empty();
        }
        if (handleGet("/api/v1/namespaces/" + attributes.namespace()).code() != 200) {
            return Optional.of(ApiStatus.namespaceNotFound(attributes.namespace()));
        }
        boolean jobBody = attributes.apiGroup().equals("batch") && attributes.resource().equals("jobs")
                && attributes.subresource().isEmpty() && !attributes.verb().equals("patch");
        // getBytes(), not getUtf8Body(): reading the body must leave it for storage
        return jobBody && request.getBody() != null
                ? invalidJob(new String(request.getBody().getBytes(), StandardCharsets.UTF_8))
                : Optional.empty();
    }

    /** The API server's Job validation of what the controller acts on ({@link JobValidation}): 422 with its errors. */
    private static Optional<MockResponse> invalidJob(String body) {
        Job job;
        try {
            job = Serialization.unmarshal(body, Job.class);
        } catch (RuntimeException e) {
            return Optional.empty(); // storage refuses what does not parse
        }
        var errors = JobValidation.errors(job);
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(ApiStatus.invalid("Job", "batch", job.getMetadata().getName(), errors));
    }

    /** Requests of one verb on one resource that the server does not serve, as many as {@code left} says. */
    private record Unavailable(String verb, String apiGroup, String resource, AtomicInteger left) {

        boolean takes(RequestAttributes request) {
            return request.verb().equals(verb) && request.apiGroup().equals(apiGroup)
                    && request.resource().equals(resource) && request.subresource().isEmpty()
                    && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        }
    }
}
