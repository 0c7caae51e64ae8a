package org.carla.leaderboard.console.client;

import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.annotation.RegisterClientHeaders;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * EvalAI's API as a challenge host's UI uses it (EvalAI {@code apps/jobs/urls.py}): read a submission, change its
 * status the way the "cancel" button does ({@code update_submission_meta}), resume a failed one. Only
 * {@link EvalAiHost} calls it.
 */
@RegisterRestClient(configKey = "evalai")
@RegisterClientHeaders(EvalAiAuthorization.class)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
interface EvalAiHostApi {

    @GET
    @Path("/api/jobs/submission/{submissionPk}")
    EvalAiSubmission submission(@PathParam("submissionPk") long submissionPk);

    @PATCH
    @Path("/api/jobs/challenges/{challengePk}/submissions/{submissionPk}/update_submission_meta/")
    Response updateSubmissionMeta(@PathParam("challengePk") long challengePk,
            @PathParam("submissionPk") long submissionPk, Map<String, String> meta);

    @POST
    @Path("/api/jobs/submissions/{submissionPk}/resume/")
    Response resume(@PathParam("submissionPk") long submissionPk);
}
