package org.carla.leaderboard.console.rest;

import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.carla.leaderboard.console.service.ActionRefused;
import org.carla.leaderboard.console.service.ActionResult;
import org.carla.leaderboard.console.service.BackendHealth;
import org.carla.leaderboard.console.service.BackendView;
import org.carla.leaderboard.console.service.DeadLetterView;
import org.carla.leaderboard.console.service.OperatorActions;
import org.carla.leaderboard.console.service.SubmissionRow;
import org.carla.leaderboard.messaging.QueuesConfig;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.identity.SecurityIdentity;

/** The backend's health, the stuck submissions, and the dead-letter queues with their redrive. */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed("${console.auth.operator-role}")
public class BackendResource {

    private final BackendHealth health;
    private final OperatorActions actions;
    private final QueuesConfig queues;
    private final SecurityIdentity identity;

    BackendResource(BackendHealth health, OperatorActions actions, QueuesConfig queues,
            SecurityIdentity identity) {
        this.health = health;
        this.actions = actions;
        this.queues = queues;
        this.identity = identity;
    }

    /** Which dead letters to move back: the ids listed, or every one with {@code all} (never by an empty list). */
    @RegisterForReflection
    public record RedriveRequest(List<String> messageIds, Boolean all) {
    }

    @GET
    @Path("/backend")
    public BackendView backend() {
        return health.now();
    }

    @GET
    @Path("/stuck")
    public List<SubmissionRow> stuck() {
        return health.stuck();
    }

    @GET
    @Path("/dead-letters/{queue}")
    public List<DeadLetterView> deadLetters(@PathParam("queue") String queue) {
        requireQueue(queue);
        return health.deadLetters(queue);
    }

    @POST
    @Path("/dead-letters/{queue}/redrive")
    @Consumes(MediaType.APPLICATION_JSON)
    public ActionResult redrive(@PathParam("queue") String queue, RedriveRequest request) {
        boolean all = request != null && Boolean.TRUE.equals(request.all());
        List<String> ids = request == null || request.messageIds() == null ? List.of() : request.messageIds();
        if (all == !ids.isEmpty()) {
            throw new ActionRefused("say which dead letters to move back: \"message_ids\": [...] or \"all\": true");
        }
        return actions.redrive(queue, ids, identity.getPrincipal().getName());
    }

    private void requireQueue(String queue) {
        if (!QueuesConfig.ALL.contains(queue) || !queues.queues().containsKey(queue)) {
            throw new ActionRefused("no queue '" + queue.replaceAll("[^A-Za-z0-9_-]", "?") + "' is configured");
        }
    }
}
