package org.carla.leaderboard.ingest.client;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** EvalAI's host API, as much of it as the intake reads. Only {@link EvalAiClient} sees it. */
@RegisterRestClient(configKey = "evalai")
@Path("/api/jobs")
interface EvalAiApi {

    /** No trailing slash: EvalAI's route for this one has none. */
    @GET
    @Path("/submission/{pk}")
    @Produces(MediaType.APPLICATION_JSON)
    EvalAiSubmission submission(@PathParam("pk") long submissionPk,
            @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization);
}
