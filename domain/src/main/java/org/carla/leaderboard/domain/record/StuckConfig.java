package org.carla.leaderboard.domain.record;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The bounds of {@link StuckRules} and how often they are checked ({@code stuck.*}), the same for every service that
 * mends and for ops-console, which lists; a deployment overrides any of them in its shared configuration.
 */
@ConfigMapping(prefix = "stuck")
public interface StuckConfig {

    /** How often each service looks for the submissions its rules mend. */
    @WithDefault(StuckRules.CHECK_EVERY)
    Duration checkEvery();

    @WithDefault(StuckRules.UNLAUNCHED_AFTER)
    Duration unlaunchedAfter();

    @WithDefault(StuckRules.NO_PROGRESS_AFTER)
    Duration noProgressAfter();

    @WithDefault(StuckRules.NO_PROGRESS_FAIL_AFTER)
    Duration noProgressFailAfter();

    @WithDefault(StuckRules.UNCONFIRMED_FINAL_AFTER)
    Duration unconfirmedFinalAfter();

    @WithDefault(StuckRules.UNREPORTED_JOB_AFTER)
    Duration unreportedJobAfter();

    default StuckRules.Bounds bounds() {
        return new StuckRules.Bounds(unlaunchedAfter(), noProgressAfter(), noProgressFailAfter(),
                unconfirmedFinalAfter(), unreportedJobAfter());
    }
}
