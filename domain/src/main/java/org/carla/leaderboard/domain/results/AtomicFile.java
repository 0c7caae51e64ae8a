package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Replaces a file whole, in one step, never through a link: the content goes to a temporary file created new
 * ({@code O_CREAT|O_EXCL|O_NOFOLLOW}) in the same folder, opened as a folder ({@code openat}), then is renamed over the
 * file ({@code renameat}), so a reader or an upload never sees half of it, and a symbolic link or a pipe placed at the
 * file's name is replaced rather than written through. The file is {@code rw-r--r--} whatever the umask: the
 * containers of a submission's pod run as different users and read each other's files.
 */
public final class AtomicFile {

    /** Readable by every container of the pod, writable by its writer only. */
    public static final Set<PosixFilePermission> READABLE_BY_ALL = PosixFilePermissions.fromString("rw-r--r--");

    private static final FileAttribute<Set<PosixFilePermission>> CREATED = PosixFilePermissions
            .asFileAttribute(READABLE_BY_ALL);
    private static final Set<OpenOption> CREATE_NEW = Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

    private AtomicFile() {
    }

    /** Replaces {@code file} with {@code content}, creating its folder when missing. */
    public static void replace(Path file, byte[] content) throws IOException {
        Path folder = file.toAbsolutePath().getParent();
        Files.createDirectories(folder);
        try (DirectoryStream<Path> opened = Files.newDirectoryStream(folder)) {
            replace(secure(opened, folder), folder, file.getFileName().toString(), content);
        }
    }

    /**
     * Replaces {@code name} in the open {@code folder} ({@code folderPath} is where it was opened, used only to set
     * the mode when the umask took bits away: {@code chmod} never opens, so a pipe swapped in cannot block it).
     */
    public static void replace(SecureDirectoryStream<Path> folder, Path folderPath, String name, byte[] content)
            throws IOException {
        Path temporary = null;
        boolean moved = false;
        try {
            // Created new and written through the same descriptor: nothing swapped in at that name is ever opened.
            for (int attempt = 0; temporary == null; attempt++) {
                Path candidate = Path.of("." + name + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
                try (SeekableByteChannel channel = folder.newByteChannel(candidate, CREATE_NEW, CREATED)) {
                    temporary = candidate;
                    ByteBuffer buffer = ByteBuffer.wrap(content);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                } catch (FileAlreadyExistsException e) {
                    if (attempt >= 10) {
                        throw e;
                    }
                }
            }
            PosixFileAttributeView view = folder.getFileAttributeView(temporary, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!view.readAttributes().permissions().equals(READABLE_BY_ALL)) {
                Files.setPosixFilePermissions(folderPath.resolve(temporary), READABLE_BY_ALL);
            }
            folder.move(temporary, folder, Path.of(name));
            moved = true;
        } finally {
            if (temporary != null && !moved) {
                try {
                    folder.deleteFile(temporary);
                } catch (IOException e) {
                    // already gone; nothing else to clean
                }
            }
        }
    }

    /** The folder stream as the secure kind ({@code openat}-based), which every Linux and macOS JDK gives. */
    public static SecureDirectoryStream<Path> secure(DirectoryStream<Path> opened, Path folder) throws IOException {
        if (opened instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        throw new IOException("this platform cannot open " + folder + " as a folder (no openat): files are not"
                + " written there");
    }

}
