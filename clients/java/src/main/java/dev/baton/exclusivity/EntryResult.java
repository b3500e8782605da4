package dev.baton.exclusivity;

import java.util.List;

/**
 * What one entry saw in Redis: how many others were inside (the counter before this entry; more
 * than 0 is a violation) and the longest-inside of them, at most {@link RedisCounter#MAX_OTHERS_INSIDE}.
 */
record EntryResult(int othersCount, List<OtherInside> others) {
    /** Another worker inside, and how long it had been inside by Redis's clock. */
    record OtherInside(String worker, long insideForMs) {}
}
