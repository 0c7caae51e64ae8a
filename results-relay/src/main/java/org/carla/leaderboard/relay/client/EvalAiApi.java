package org.carla.leaderboard.relay.client;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.annotation.RegisterClientHeaders;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** EvalAI's host API as the relay uses it; only {@link EvalAi} calls it. */
@RegisterRestClient(configKey = "evalai")
@RegisterClientHeaders(EvalAiAuthorization.class)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
interface EvalAiApi {

    @PATCH
    @Path("/api/jobs/challenge/{challengePk}/update_submission/")
    Response markRunning(@PathParam("challengePk") long challengePk, RunningUpdate update);

    @PUT
    @Path("/api/jobs/challenge/{challengePk}/update_submission/")
    Response updateSubmission(@PathParam("challengePk") long challengePk, EvaluationUpdate update);

    @PUT
    @Path("/api/jobs/challenges/{challengePk}/update_partially_evaluated_submission/")
    Response updatePartiallyEvaluated(@PathParam("challengePk") long challengePk, EvaluationUpdate update);

    @GET
    @Path("/api/jobs/submission/{submissionPk}")
    EvalAiSubmission submission(@PathParam("submissionPk") long submissionPk);

    /** Any answer below 500 means EvalAI is up; the path itself need not exist. */
    @GET
    @Path("/api/")
    Response root();
}
