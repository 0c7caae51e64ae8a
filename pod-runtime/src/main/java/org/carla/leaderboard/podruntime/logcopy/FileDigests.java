package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * What tells a file's change apart without keeping its bytes: the CRC-32C of the {@link #SEAM} bytes before an end
 * (an append keeps them, a rewrite rarely does) and the MD5 of a small file (S3's ETag of a single-part object). Reads
 * with positional reads into one reused buffer: one pass at a time.
 */
final class FileDigests {

    /** Compared at the end seen last to tell an append from a rewrite. */
    static final int SEAM = 4096;

    private final byte[] buffer = new byte[64 * 1024];

    /** CRC-32C of the {@link #SEAM} bytes before {@code end} (fewer when the file is shorter now). */
    long seam(FileChannel channel, long end) throws IOException {
        long start = Math.max(0, end - SEAM);
        var crc = new CRC32C();
        crc.update(buffer, 0, readInto(channel, start, (int) (end - start)));
        return crc.getValue();
    }

    /** MD5 of the first {@code size} bytes, read a buffer at a time (no garbage the size of the file). */
    String md5(FileChannel channel, long size) throws IOException {
        MessageDigest digest = md5();
        for (long offset = 0; offset < size; ) {
            int read = readInto(channel, offset, (int) Math.min(buffer.length, size - offset));
            if (read == 0) {
                break;
            }
            digest.update(buffer, 0, read);
            offset += read;
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private int readInto(FileChannel channel, long offset, int length) throws IOException {
        ByteBuffer target = ByteBuffer.wrap(buffer, 0, length);
        while (target.hasRemaining()) {
            if (channel.read(target, offset + target.position()) < 0) {
                break;
            }
        }
        return target.position();
    }

    static String md5(byte[] content) {
        return md5(content, content.length);
    }

    static String md5(byte[] content, int length) {
        MessageDigest digest = md5();
        digest.update(content, 0, length);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every JVM", e);
        }
    }
}
