package org.carla.leaderboard.podruntime.logcopy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * logcopy's own files (the merged results, EvalAI's files, its log, its status files), uploaded from memory when their
 * content changed, never read from the volume, where a participant's code can replace them. Their bytes are metered
 * apart from the containers' and are outside the budget.
 */
final class OwnUploads {

    private final SubmissionObjects objects;
    private final RequestMeter meter;
    /** The MD5 of what is in S3, by relative path. */
    private final Map<String, String> uploaded = new HashMap<>();
    /** The very content uploaded last: logcopy replaces a file's bytes only when they change. */
    private final Map<String, byte[]> checked = new HashMap<>();

    OwnUploads(SubmissionObjects objects, RequestMeter meter) {
        this.objects = objects;
        this.meter = meter;
    }

    LogsUpload.Pass upload(Map<String, byte[]> own, Deadline deadline) {
        int count = 0;
        long bytes = 0;
        for (Map.Entry<String, byte[]> file : own.entrySet()) {
            if (deadline.passed()) {
                return new LogsUpload.Pass(count, bytes, false);
            }
            if (checked.get(file.getKey()) == file.getValue()) {
                continue;
            }
            String md5 = FileDigests.md5(file.getValue());
            if (md5.equals(uploaded.get(file.getKey()))) {
                continue;
            }
            objects.put(file.getKey(), file.getValue(), deadline);
            meter.uploadedOwn(file.getValue().length);
            uploaded.put(file.getKey(), md5);
            checked.put(file.getKey(), file.getValue());
            count++;
            bytes += file.getValue().length;
        }
        return new LogsUpload.Pass(count, bytes, true);
    }

    /** Those of {@code own} whose content now is not the one uploaded last. */
    List<String> notUploaded(Map<String, byte[]> own) {
        var names = new ArrayList<String>();
        own.forEach((name, content) -> {
            if (!FileDigests.md5(content).equals(uploaded.get(name))) {
                names.add(name);
            }
        });
        return names;
    }
}
