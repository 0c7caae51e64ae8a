package org.carla.leaderboard.console.rest;

import java.time.Instant;
import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.carla.leaderboard.console.service.ActionResult;
import org.carla.leaderboard.console.service.OperatorActions;
import org.carla.leaderboard.console.service.SubmissionDetail;
import org.carla.leaderboard.console.service.SubmissionLookup;
import org.carla.leaderboard.console.service.Looks;
import org.carla.leaderboard.console.service.SubmissionOverview;
import org.carla.leaderboard.console.service.SubmissionRow;
import org.carla.leaderboard.console.service.SubmissionView;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.identity.SecurityIdentity;

/**
 * The submissions: the recent ones, one in detail, and the two actions on one. A submission is named by its EvalAI pk;
 * {@code team} and {@code leaderboard} (as the list gives them) save a lookup.
 */
@Path("/api/submissions")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed("${console.auth.operator-role}")
public class SubmissionsResource {

    private final Looks looks;
    private final SubmissionOverview overview;
    private final SubmissionLookup lookup;
    private final SubmissionDetail detail;
    private final OperatorActions actions;
    private final SecurityIdentity identity;

    SubmissionsResource(Looks looks, SubmissionOverview overview, SubmissionLookup lookup, SubmissionDetail detail,
            OperatorActions actions, SecurityIdentity identity) {
        this.looks = looks;
        this.overview = overview;
        this.lookup = lookup;
        this.detail = detail;
        this.actions = actions;
        this.identity = identity;
    }

    /** The list and what it is made of: when it was read, which tables were cut short, what could not be read. */
    @RegisterForReflection
    public record Listing(Instant at, List<SubmissionRow> submissions, List<String> truncated, List<String> problems) {
    }

    @GET
    public Listing list(@QueryParam("status") String status, @QueryParam("track") String track,
            @QueryParam("team") String team) {
        var look = looks.current();
        return new Listing(look.at(), overview.rows(look, new SubmissionOverview.Filter(status, track, team)),
                look.truncated(), look.problems());
    }

    @GET
    @Path("/{submission}")
    public SubmissionView one(@PathParam("submission") String submission, @QueryParam("team") String team,
            @QueryParam("leaderboard") String leaderboard) {
        return detail.of(lookup.find(submission, team, leaderboard));
    }

    @POST
    @Path("/{submission}/cancel")
    public ActionResult cancel(@PathParam("submission") String submission, @QueryParam("team") String team,
            @QueryParam("leaderboard") String leaderboard) {
        return actions.cancel(submission, team, leaderboard, identity.getPrincipal().getName());
    }

    @POST
    @Path("/{submission}/resume")
    public ActionResult resume(@PathParam("submission") String submission, @QueryParam("team") String team,
            @QueryParam("leaderboard") String leaderboard) {
        return actions.resume(submission, team, leaderboard, identity.getPrincipal().getName());
    }
}
