package dev.baton.exclusivity;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Events waiting for Baton, at most maxBufferedEvents: beyond that the oldest waiting one is
 * dropped and counted. Every event added is, in the end, sent or dropped: {@link #isSettled}
 * tells a flush when everything added before it has been.
 */
final class EventBuffer {
    private final int maxBuffered;
    private final ArrayDeque<CounterEvent> waiting = new ArrayDeque<>();
    private long added;
    private long sent;
    private long dropped;

    EventBuffer(int maxBuffered) {
        this.maxBuffered = maxBuffered;
    }

    /** Adds an event; answers true when the oldest had to be dropped to make room. */
    synchronized boolean add(CounterEvent event) {
        added++;
        waiting.addLast(event);
        if (waiting.size() <= maxBuffered) return false;
        waiting.pollFirst();
        dropped++;
        return true;
    }

    synchronized int size() {
        return waiting.size();
    }

    /** Takes up to max of the oldest events out of the buffer (they are then the sender's). */
    synchronized List<CounterEvent> take(int max) {
        List<CounterEvent> batch = new ArrayList<>(Math.min(max, waiting.size()));
        while (batch.size() < max && !waiting.isEmpty()) batch.add(waiting.pollFirst());
        return batch;
    }

    synchronized void settle(int sentCount, int droppedCount) {
        sent += sentCount;
        dropped += droppedCount;
    }

    synchronized long added() {
        return added;
    }

    synchronized boolean isSettled(long target) {
        return sent + dropped >= target;
    }

    synchronized long sent() {
        return sent;
    }

    synchronized long dropped() {
        return dropped;
    }
}
