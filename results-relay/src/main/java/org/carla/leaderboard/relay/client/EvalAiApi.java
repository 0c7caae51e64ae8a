package org.carla.leaderboard.relay.client;

import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** EvalAI's host API as the relay uses it, the host token in each call's header; only {@link EvalAiClient} calls it. */
@RegisterRestClient(configKey = "evalai")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
interface EvalAiApi {

    @PATCH
    @Path("/api/jobs/challenge/{challengePk}/update_submission/")
    Response markRunning(@PathParam("challengePk") long challengePk, RunningUpdate update,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);

    @PUT
    @Path("/api/jobs/challenge/{challengePk}/update_submission/")
    Response updateSubmission(@PathParam("challengePk") long challengePk, EvaluationUpdate update,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);

    @PUT
    @Path("/api/jobs/challenges/{challengePk}/update_partially_evaluated_submission/")
    Response updatePartiallyEvaluated(@PathParam("challengePk") long challengePk, EvaluationUpdate update,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);

    /** No trailing slash: EvalAI's route for this one has none. */
    @GET
    @Path("/api/jobs/submission/{submissionPk}")
    EvalAiSubmission submission(@PathParam("submissionPk") long submissionPk,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);

    /**
     * The challenge's submissions of one status submitted strictly between two times, either left out for no bound
     * (EvalAI's get_submissions_for_challenge: every match in one answer, no pages).
     */
    @GET
    @Path("/api/jobs/challenge/{challengePk}/submission/")
    List<EvalAiSubmission> submissions(@PathParam("challengePk") long challengePk, @QueryParam("status") String status,
            @QueryParam("submitted_after") String submittedAfter,
            @QueryParam("submitted_before") String submittedBefore,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);
}
