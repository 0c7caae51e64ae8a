package org.carla.leaderboard.launcher.service;

/**
 * Shell one-liners that play pod-runtime's roles in the cluster tests (an image profile's command, {@code $0} the
 * role), following the container protocol's files as pod-runtime does: init makes the status folder every container
 * writes in; a pair container writes a start file when it starts, and once done its done file, then holds until the
 * pod ends (a sidecar that exits 0 is restarted) and exits 0 on SIGTERM; logcopy, whose exit ends the pod, exits 0
 * once every pair is done, else 3 once the start files count {@code RESTART_LIMIT} restarts (pod-runtime's order: pairs
 * that are all done restart no more). Compile-time constants, for annotations.
 */
final class ShellRoles {

    /** The JSON argv around a script. */
    static final String SH = "[\"/bin/sh\", \"-c\", \"";
    static final String END = "\"]";

    /** pod-runtime's init: the status folder, writable by every container's user. */
    static final String INIT = "[ $0 = init ] && mkdir -m 777 $STATUS_DIR; ";

    /** A pair container's start file: {@code <role>-<pair>.start<K>}, K its earlier starts; {@code $k} is K. */
    static final String START = "d=$STATUS_DIR; c=$0-$WORKER_ID; k=$(ls $d | grep -c ^$c[.]start);"
            + " touch $d/$c.start$k; ";

    /** A pair container's end of work: its done file, then the hold. */
    static final String DONE_AND_HOLD = "trap 'exit 0' TERM; touch $STATUS_DIR/$0-$WORKER_ID.done;"
            + " while :; do sleep 1; done";

    /** logcopy; the pod-runtime image's other roles (install) exit 0. */
    static final String LOGCOPY = SH + "[ $0 = logcopy ] || exit 0; d=$STATUS_DIR; while :; do"
            + " n=0; i=1; while [ $i -le $WORKER_PAIRS ]; do"
            + " [ -e $d/simulator-$i.done ] && [ -e $d/agent-$i.done ] && n=$((n + 1)); i=$((i + 1)); done;"
            + " [ $n -eq $WORKER_PAIRS ] && exit 0;"
            + " s=$(ls $d | grep -c [.]start); c=$(ls $d | grep [.]start | sed s/[.]start.*// | sort -u | wc -l);"
            + " [ $((s - c)) -ge $RESTART_LIMIT ] && exit 3; sleep 0.2; done" + END;

    /**
     * The start of every role of an image that is not pod-runtime's: init as above, the other one-off roles exit 0, a
     * pair container writes its start file; what follows is the pair's drive, then {@link #DONE_AND_HOLD} and
     * {@link #END}.
     */
    static final String PAIR = SH + INIT + "case $0 in simulator|agent) ;; *) exit 0;; esac; " + START;

    private ShellRoles() {
    }
}
