package dev.baton.exclusivity;

/**
 * What a counter did so far. Nothing is lost silently: every entry is counted ({@code entered}),
 * in {@code notCounted}, or, outside the key sample, in {@code notSampled}; every event is sent, buffered or in {@code eventsDropped}.
 *
 * @param entered entries Redis recorded
 * @param violations of those, entries that found another worker inside
 * @param notCounted entries (and exits) that never reached Redis: Redis down, or the queue to it full
 * @param counterQueued enters and exits waiting for Redis
 * @param eventsSent events Baton acknowledged
 * @param eventsBuffered events waiting to be sent
 * @param eventsDropped events dropped: the buffer overflowed, or Baton refused them (4xx)
 * @param countsSent per-minute increments Baton acknowledged (mode violations+counts)
 * @param countsPending increments counted and not yet sent
 * @param countsDropped increments whose minute Baton refused (4xx)
 * @param notSampled entries not counted because their key is outside the sample (keySampleRate)
 */
public record ExclusivityStats(
        long entered,
        long violations,
        long notCounted,
        long counterQueued,
        long eventsSent,
        long eventsBuffered,
        long eventsDropped,
        long countsSent,
        long countsPending,
        long countsDropped,
        long notSampled) {}
