package org.carla.leaderboard.console.rest;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.carla.leaderboard.console.client.EvalAiRefusedException;
import org.carla.leaderboard.console.client.EvalAiUnavailableException;
import org.carla.leaderboard.console.service.ActionRefused;
import org.carla.leaderboard.console.service.QueueUnavailable;
import org.carla.leaderboard.console.service.SubmissionLookup;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** Every refusal and failure as {@code {"error": "..."}} with a status that says whose it is. */
public class ErrorAnswers {

    @RegisterForReflection
    public record Error(String error) {
    }

    @ServerExceptionMapper
    public Response refused(ActionRefused e) {
        return answer(Response.Status.CONFLICT, e.getMessage());
    }

    @ServerExceptionMapper
    public Response badReference(SubmissionLookup.BadReference e) {
        return answer(Response.Status.BAD_REQUEST, e.getMessage());
    }

    @ServerExceptionMapper
    public Response unknown(SubmissionLookup.UnknownSubmission e) {
        return answer(Response.Status.NOT_FOUND, e.getMessage());
    }

    @ServerExceptionMapper
    public Response evalAiDown(EvalAiUnavailableException e) {
        return answer(Response.Status.SERVICE_UNAVAILABLE, e.getMessage() + "; nothing was changed, try again");
    }

    @ServerExceptionMapper
    public Response queueDown(QueueUnavailable e) {
        return answer(Response.Status.SERVICE_UNAVAILABLE, e.getMessage());
    }

    @ServerExceptionMapper
    public Response evalAiRefused(EvalAiRefusedException e) {
        return answer(Response.Status.BAD_GATEWAY, e.getMessage());
    }

    private static Response answer(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(new Error(message)).build();
    }
}
