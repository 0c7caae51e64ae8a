package org.carla.leaderboard.podruntime.volume;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;

/**
 * The modes of what pod-runtime creates in a volume the pod's containers share. Every image runs as a user of its own
 * (CARLA's, the participant's, pod-runtime's), so nothing is left to the umask or to a private temporary file's 0600:
 * layout folders are open to all (every container creates files in them), files are readable by all, and what the
 * others run is executable by all.
 */
public final class SharedFiles {

    /** A folder of the logs volume's layout: every container's user creates and renames files in it. */
    public static final Set<PosixFilePermission> OPEN_FOLDER = PosixFilePermissions.fromString("rwxrwxrwx");
    /** A file laid out by init for another container's user to append to (a resumed run's logs). */
    public static final Set<PosixFilePermission> OPEN_FILE = PosixFilePermissions.fromString("rw-rw-rw-");
    /** A file its writer alone changes and every container reads: status files, the roles' logs. */
    public static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");
    /** What every container runs or looks into: the installed executable, its folders. */
    public static final Set<PosixFilePermission> EXECUTABLE = PosixFilePermissions.fromString("rwxr-xr-x");

    private SharedFiles() {
    }

    /**
     * Gives {@code path} the mode. A path another user owns cannot be changed (EPERM); it is accepted when its mode
     * already grants everyone what {@code mode} grants them (an emptyDir's root is 0777 and owned by root).
     */
    public static void setMode(Path path, Set<PosixFilePermission> mode) throws IOException {
        try {
            Files.setPosixFilePermissions(path, mode);
        } catch (FileSystemException e) {
            Set<PosixFilePermission> present = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
            if (!present.containsAll(forOthers(mode))) {
                throw e;
            }
        }
    }

    /** Creates {@code folder} and its missing parents, each {@link #OPEN_FOLDER}; an existing folder is left as is. */
    public static Path openFolder(Path folder) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = folder.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        while (!missing.isEmpty()) {
            Path created = missing.pop();
            Files.createDirectories(created);
            setMode(created, OPEN_FOLDER);
        }
        return folder;
    }

    /**
     * Lets everyone read a copied file or folder (and run or enter it when its owner may), keeping the rest of its
     * mode: a copy keeps its source's mode, and the source may be private to the image's user.
     */
    public static void readableByAll(Path path) throws IOException {
        Set<PosixFilePermission> mode = EnumSet.copyOf(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
        mode.addAll(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OTHERS_READ));
        if (mode.contains(PosixFilePermission.OWNER_EXECUTE)) {
            mode.addAll(Set.of(PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE));
        }
        setMode(path, mode);
    }

    private static Set<PosixFilePermission> forOthers(Set<PosixFilePermission> mode) {
        Set<PosixFilePermission> others = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission permission : mode) {
            if (permission.name().startsWith("OTHERS_")) {
                others.add(permission);
            }
        }
        return others;
    }
}
