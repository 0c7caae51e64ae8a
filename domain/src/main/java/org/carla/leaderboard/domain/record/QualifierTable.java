package org.carla.leaderboard.domain.record;

/**
 * The passed qualifiers ({@code evaluation.qualifier-table}): key {@link #TEAM_ID} (S) + {@link #TRACK_CODENAME} (S),
 * one item per team and track it may submit to. results-relay adds a team when it passes a qualifier track;
 * ingest-service reads it to gate a track.
 */
public final class QualifierTable {

    public static final String TEAM_ID = "team_id";
    /** The codename of the track the pass opens. */
    public static final String TRACK_CODENAME = "track_codename";
    /** The submission that passed, kept for the record. */
    public static final String SUBMISSION_ID = "submission_id";

    private QualifierTable() {
    }
}
