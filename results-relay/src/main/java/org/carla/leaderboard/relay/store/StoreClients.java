package org.carla.leaderboard.relay.store;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.carla.leaderboard.domain.layout.SubmissionFiles;

import software.amazon.awssdk.services.s3.S3Client;

/** The submissions' files in their buckets, through the domain's {@link SubmissionFiles} on the relay's S3 client. */
public class StoreClients {

    @Produces
    @Singleton
    SubmissionFiles submissionFiles(S3Client s3) {
        return new SubmissionFiles(s3);
    }
}
