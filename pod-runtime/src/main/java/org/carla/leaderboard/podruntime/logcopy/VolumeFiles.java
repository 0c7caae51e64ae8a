package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.results.AtomicFile;
import org.carla.leaderboard.podruntime.logcopy.GuardedOpen.BlockedOpenException;
import org.carla.leaderboard.podruntime.volume.SharedFiles;

/**
 * The logs volume as logcopy touches it. Every folder is world-writable, so a participant's code can put anything at
 * any name, and change it at any moment. Hence every access goes from the volume's root (a mount point, the only path
 * trusted) one name at a time through open folders ({@code openat}/{@code fstatat}/{@code renameat}), never follows a
 * symbolic link ({@code O_NOFOLLOW}), opens only what was just seen to be a folder or a regular file and does so under
 * {@link GuardedOpen} (a pipe swapped in between cannot block logcopy), and reads files with positional reads (a pipe
 * fails them at once). Nothing outside the volume is read or written, whatever the names inside point to.
 */
final class VolumeFiles {

    /** Folders deeper than this are not walked (the layout is 2 deep). */
    static final int MAX_DEPTH = 16;
    /** Names looked at in one walk: a participant's million empty files cost a bounded walk. */
    static final int MAX_NAMES = 20_000;

    private static final Set<StandardOpenOption> READ = Set.of(StandardOpenOption.READ);
    /**
     * The volume's {@code control/}: under the submission's prefix that folder holds the relay's control objects (the
     * cancel), so nothing of the volume is uploaded there.
     */
    static final String CONTROL = SubmissionLayout.CONTROL_DIR;

    private final Path root;
    private final GuardedOpen guard;

    /** A regular file found by a walk: its path from the root ({@code agent/agent1/leaderboard.log}) and its stamp. */
    record Found(String relative, long size, FileTime modified, Object fileKey) {
    }

    /** A name a walk does not take, and why (a link, a pipe, too deep, unprintable...). */
    record Skipped(String relative, String why) {
    }

    record Listing(List<Found> files, List<Skipped> skipped) {
    }

    /** A name that is there but is not the kind asked for (a link, a pipe, a device, a folder). */
    static final class NotRegularException extends IOException {
        NotRegularException(String message) {
            super(message);
        }
    }

    VolumeFiles(Path root, GuardedOpen guard) {
        this.root = root.toAbsolutePath().normalize();
        this.guard = guard;
    }

    Path root() {
        return root;
    }

    /** Every regular file under the root but those {@code taken} says logcopy writes itself, and what was skipped. */
    Listing walk(Predicate<String> taken) throws IOException {
        var walk = new Walk(taken);
        try (var folders = new Folders()) {
            walk.folder(folders.root(), "", 0, folders);
        }
        return new Listing(walk.files, walk.skipped);
    }

    /**
     * The regular file at {@code relative}, open for positional reads; the caller closes it.
     *
     * @throws NoSuchFileException when a name on the way is missing
     * @throws NotRegularException when a name on the way is a link, a pipe, a device, or not a folder
     * @throws BlockedOpenException when an open did not return in time
     */
    FileChannel open(String relative) throws IOException {
        String[] names = relative.split("/", -1);
        try (var folders = new Folders()) {
            SecureDirectoryStream<Path> folder = folders.root();
            for (int i = 0; i < names.length - 1; i++) {
                folder = folders.open(folder, names[i], relative);
            }
            Path name = Path.of(names[names.length - 1]);
            BasicFileAttributes attributes = kind(folder, name);
            if (!attributes.isRegularFile()) {
                throw new NotRegularException(relative + " is " + describe(attributes));
            }
            SecureDirectoryStream<Path> parent = folder;
            SeekableByteChannel channel = folders.guarded(parent,
                    () -> guard.open(relative, () -> parent.newByteChannel(name, READ_NOFOLLOW)));
            if (channel instanceof FileChannel file) {
                return file;
            }
            channel.close();
            throw new IOException(relative + ": not a file channel on this platform");
        }
    }

    /** The attributes of the name at {@code relative}, not following a link; empty when a name on the way is missing. */
    Optional<BasicFileAttributes> attributes(String relative) throws IOException {
        String[] names = relative.split("/", -1);
        try (var folders = new Folders()) {
            SecureDirectoryStream<Path> folder = folders.root();
            for (int i = 0; i < names.length - 1; i++) {
                folder = folders.open(folder, names[i], relative);
            }
            return attributes(folder, Path.of(names[names.length - 1]));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * The whole content of the regular file at {@code relative} if it holds at most {@code max} bytes.
     *
     * @throws NotRegularException also when it holds more ("larger than ...")
     */
    byte[] read(String relative, long max) throws IOException {
        try (FileChannel channel = open(relative)) {
            // One byte more than the size seen (or than the bound) tells a file that is larger than it says.
            byte[] content = read(channel, 0, (int) Math.min(max + 1, Math.max(channel.size(), 0) + 1));
            if (content.length > max) {
                throw new NotRegularException(relative + " is larger than " + max + " bytes");
            }
            return content;
        }
    }

    /** Up to {@code length} bytes from {@code offset}: fewer when the file ends first. Fails on a pipe, never waits. */
    static byte[] read(FileChannel channel, long offset, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, offset + buffer.position()) < 0) {
                break;
            }
        }
        if (buffer.hasRemaining()) {
            byte[] shorter = new byte[buffer.position()];
            buffer.flip().get(shorter);
            return shorter;
        }
        return buffer.array();
    }

    /**
     * Replaces {@code relative} (in the root or in one of its folders) with {@code content}, through
     * {@link AtomicFile}: a new temporary file renamed over the name, never written through what is there. A folder
     * that is missing is created; one that is not a real folder (a link, a file, a pipe) is removed and created again,
     * so logcopy's files always land in the volume. Returns what was done to the folder, if anything.
     */
    Optional<String> replace(String relative, byte[] content, boolean openToAll) throws IOException {
        int slash = relative.indexOf('/');
        if (slash != relative.lastIndexOf('/')) {
            throw new IllegalArgumentException("logcopy writes at most one folder deep: " + relative);
        }
        String folderName = slash < 0 ? "" : relative.substring(0, slash);
        String name = relative.substring(slash + 1);
        Optional<String> repaired = Optional.empty();
        try (var folders = new Folders()) {
            SecureDirectoryStream<Path> rootFolder = folders.root();
            if (folderName.isEmpty()) {
                folders.guarded(rootFolder, () -> {
                    guard.run(relative, () -> AtomicFile.replace(rootFolder, root, name, content));
                    return null;
                });
                return repaired;
            }
            Path folderPath = Path.of(folderName);
            Optional<BasicFileAttributes> found = attributes(rootFolder, folderPath);
            if (found.isPresent() && !found.get().isDirectory()) {
                rootFolder.deleteFile(folderPath);
                repaired = Optional.of(folderName + " was " + describe(found.get()) + ": replaced by a real folder");
            }
            boolean created = found.isEmpty() || repaired.isPresent();
            if (created) {
                try {
                    // mkdir never follows a link at the name; the root is the mount point.
                    Files.createDirectory(root.resolve(folderName));
                } catch (FileAlreadyExistsException e) {
                    // created meanwhile: checked again when opened
                }
            }
            SecureDirectoryStream<Path> folder = folders.open(rootFolder, folderName, relative);
            if (openToAll && created) {
                // fchmod on the folder just opened: every container writes its status files there.
                folder.getFileAttributeView(PosixFileAttributeView.class).setPermissions(SharedFiles.OPEN_FOLDER);
            }
            folders.guarded(folder, () -> {
                guard.run(relative, () -> AtomicFile.replace(folder, root.resolve(folderName), name, content));
                return null;
            });
        }
        return repaired;
    }

    /** The attributes of {@code name} in {@code folder}, not following a link; empty when it is not there. */
    private static Optional<BasicFileAttributes> attributes(SecureDirectoryStream<Path> folder, Path name)
            throws IOException {
        try {
            return Optional.of(folder.getFileAttributeView(name, BasicFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static BasicFileAttributes kind(SecureDirectoryStream<Path> folder, Path name) throws IOException {
        return folder.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .readAttributes();
    }

    /** What a name that is not a regular file is, in words. */
    static String describe(BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link";
        }
        if (attributes.isDirectory()) {
            return "a folder";
        }
        if (attributes.isRegularFile()) {
            return "a regular file";
        }
        return "a named pipe, socket or device";
    }

    /**
     * The folder streams of one access, from the root: closed at its end, except one that a blocked open still holds
     * (closing it would wait for that thread for ever; the descriptor is left to the blocked thread).
     */
    private final class Folders implements AutoCloseable {
        private final List<SecureDirectoryStream<Path>> open = new ArrayList<>();
        private final Set<SecureDirectoryStream<Path>> held = new java.util.HashSet<>();

        SecureDirectoryStream<Path> root() throws IOException {
            DirectoryStream<Path> top = Files.newDirectoryStream(root);
            try {
                return add(AtomicFile.secure(top, root));
            } catch (IOException e) {
                top.close();
                throw e;
            }
        }

        /** The folder {@code name} in {@code parent}, when it is a real folder (not a link, not a pipe). */
        SecureDirectoryStream<Path> open(SecureDirectoryStream<Path> parent, String name, String relative)
                throws IOException {
            Path child = Path.of(name);
            BasicFileAttributes attributes = kind(parent, child);
            if (!attributes.isDirectory()) {
                throw new NotRegularException(relative + ": " + name + " is " + describe(attributes));
            }
            return add(guarded(parent,
                    () -> guard.open(relative, () -> parent.newDirectoryStream(child, LinkOption.NOFOLLOW_LINKS))));
        }

        /** Runs an access through {@code parent}; a blocked one keeps {@code parent} open. */
        <T> T guarded(SecureDirectoryStream<Path> parent, Access<T> access) throws IOException {
            try {
                return access.run();
            } catch (BlockedOpenException e) {
                held.add(parent);
                throw e;
            }
        }

        /** Closes {@code folder} now unless a blocked open holds it. */
        void release(SecureDirectoryStream<Path> folder) throws IOException {
            if (!held.contains(folder) && open.remove(folder)) {
                folder.close();
            }
        }

        private SecureDirectoryStream<Path> add(SecureDirectoryStream<Path> folder) {
            open.add(folder);
            return folder;
        }

        @Override
        public void close() throws IOException {
            for (int i = open.size() - 1; i >= 0; i--) {
                if (!held.contains(open.get(i))) {
                    open.get(i).close();
                }
            }
        }
    }

    @FunctionalInterface
    private interface Access<T> {
        T run() throws IOException;
    }

    /** One walk: the files, the skipped names, the names looked at. */
    private final class Walk {
        private final Predicate<String> taken;
        private final List<Found> files = new ArrayList<>();
        private final List<Skipped> skipped = new ArrayList<>();
        private int names;

        Walk(Predicate<String> taken) {
            this.taken = taken;
        }

        void folder(SecureDirectoryStream<Path> folder, String prefix, int depth, Folders folders) throws IOException {
            for (Path entry : folder) {
                if (++names > MAX_NAMES) {
                    if (names == MAX_NAMES + 1) {
                        skipped.add(new Skipped(prefix + "...", "the volume holds more than " + MAX_NAMES
                                + " names: the rest is not uploaded"));
                    }
                    return;
                }
                Path name = entry.getFileName(); // relative: an absolute path would make openat ignore the folder
                String relative = prefix + name;
                if (taken.test(relative)) {
                    continue; // logcopy's own: whatever a participant put at that name is not taken
                }
                if (relative.equals(CONTROL)) {
                    skipped.add(new Skipped(relative + "/", "its S3 keys are the relay's control objects"));
                    continue;
                }
                BasicFileAttributes attributes;
                try {
                    attributes = kind(folder, name);
                } catch (NoSuchFileException e) {
                    continue; // removed since listed
                }
                if (attributes.isRegularFile()) {
                    if (!temporary(name.toString())) {
                        files.add(new Found(relative, attributes.size(), attributes.lastModifiedTime(),
                                attributes.fileKey()));
                    }
                } else if (attributes.isDirectory()) {
                    subfolder(folder, name.toString(), relative, depth, folders);
                } else {
                    skipped.add(new Skipped(relative, describe(attributes)));
                }
            }
        }

        private void subfolder(SecureDirectoryStream<Path> folder, String name, String relative, int depth,
                Folders folders) throws IOException {
            if (depth + 1 >= MAX_DEPTH) {
                skipped.add(new Skipped(relative + "/", "deeper than " + MAX_DEPTH + " folders"));
                return;
            }
            SecureDirectoryStream<Path> child;
            try {
                child = folders.open(folder, name, relative);
            } catch (BlockedOpenException e) {
                skipped.add(new Skipped(relative + "/", e.getMessage()));
                return;
            } catch (IOException e) {
                return; // removed or replaced since listed (O_NOFOLLOW refuses a link): the next walk sees it
            }
            folder(child, relative + "/", depth + 1, folders);
            folders.release(child); // one descriptor per level of the walk, not one per folder of the volume
        }
    }

    /** logcopy's own temporary files ({@link AtomicFile}): never uploaded. */
    static boolean temporary(String name) {
        return name.startsWith(".") && name.endsWith(".tmp");
    }

    private static final Set<java.nio.file.OpenOption> READ_NOFOLLOW = Set.of(StandardOpenOption.READ,
            LinkOption.NOFOLLOW_LINKS);
}
