package org.carla.leaderboard.podruntime.init;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.status.StatusFiles;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A submission's files in its leaderboard's bucket, under {@code <submission_id>/}. Used only by {@code init}: whether
 * the run already has files there, and on a resume the download; the S3 client is created on first use, so the other
 * roles never build one.
 */
@ApplicationScoped
public class SubmissionArchive {

    private final S3Client s3;

    public SubmissionArchive(S3Client s3) {
        this.s3 = s3;
    }

    /**
     * Whether anything is under the pod's prefix ({@code <id>/}, or {@code <id>/pod-<index>/} in a run of several pods):
     * the files of an earlier pod of its index (one the Job controller replaced after its node was lost, or it was
     * evicted) or of an earlier run.
     */
    public boolean holdsFiles(String bucket, String podPrefix) {
        return s3.listObjectsV2(r -> r.bucket(bucket).prefix(podPrefix).maxKeys(1)).keyCount() > 0;
    }

    /** Writes the run's versions ({@link SubmissionLayout#runVersions}), a control object no volume file overwrites. */
    public void putVersions(String bucket, String submissionId, RunVersions versions) {
        s3.putObject(r -> r.bucket(bucket).key(SubmissionLayout.runVersions(submissionId, versions.run()))
                .contentType("application/json"), RequestBody.fromString(versions.json(), StandardCharsets.UTF_8));
    }

    /** Deletes the pod prefix's {@code containers-status/}: the status files of the earlier run must not steer this one. */
    public int deleteStatusFiles(String bucket, String podPrefix) {
        String prefix = podPrefix + StatusFiles.DIRECTORY + "/";
        List<ObjectIdentifier> keys = new ArrayList<>();
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents()
                .forEach(object -> keys.add(ObjectIdentifier.builder().key(object.key()).build()));
        for (int from = 0; from < keys.size(); from += 1000) {
            List<ObjectIdentifier> batch = keys.subList(from, Math.min(keys.size(), from + 1000));
            s3.deleteObjects(r -> r.bucket(bucket).delete(Delete.builder().objects(batch).quiet(true).build()));
        }
        return keys.size();
    }

    /**
     * Downloads every object under the pod's prefix except the status files and the control objects into {@code into} (a fresh folder). A key
     * that would leave the folder ({@code ..}, absolute) is refused; any failure throws, and the caller discards the
     * folder.
     */
    public long download(String bucket, String podPrefix, Path into) throws IOException {
        String prefix = podPrefix;
        String status = prefix + StatusFiles.DIRECTORY + "/";
        String control = prefix + SubmissionLayout.CONTROL_DIR + "/";
        Path root = into.toAbsolutePath().normalize();
        long count = 0;
        for (S3Object object : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents()) {
            String key = object.key();
            if (key.endsWith("/") || key.startsWith(status) || key.startsWith(control)) {
                continue;
            }
            Path file = root.resolve(key.substring(prefix.length())).normalize();
            if (!file.startsWith(root) || file.equals(root)) {
                throw new IOException("refusing S3 key " + key + ": it leaves the logs folder");
            }
            Files.createDirectories(file.getParent());
            s3.getObject(r -> r.bucket(bucket).key(key), ResponseTransformer.toFile(file));
            count++;
        }
        return count;
    }
}
