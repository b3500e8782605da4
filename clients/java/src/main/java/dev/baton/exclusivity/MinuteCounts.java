package dev.baton.exclusivity;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-minute counts of the entries that found nobody inside ("violations+counts" mode), grouped by
 * subscription and topic as Baton's POST /api/v1/exclusivity-counts takes them. A minute is taken
 * for sending only once it is over: Baton keeps the first body of a (client, minute, group).
 */
final class MinuteCounts {
    static final long MINUTE_MS = 60_000;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Group(String subscription, String topic, long increments) {}

    record Minute(long startMs, List<Group> groups) {
        long increments() {
            return groups.stream().mapToLong(Group::increments).sum();
        }
    }

    private record GroupKey(String subscription, String topic) {}

    private final TreeMap<Long, Map<GroupKey, long[]>> minutes = new TreeMap<>();
    private long pending;

    synchronized void record(long atMs, String subscription, String topic) {
        long minute = Math.floorDiv(atMs, MINUTE_MS) * MINUTE_MS;
        minutes.computeIfAbsent(minute, m -> new LinkedHashMap<>()).computeIfAbsent(new GroupKey(subscription, topic), k -> new long[1])[0]++;
        pending++;
    }

    /** Takes the minutes that ended by nowMs (all of them when isAll), oldest first. */
    synchronized List<Minute> take(long nowMs, boolean isAll) {
        List<Minute> due = new ArrayList<>();
        while (!minutes.isEmpty() && (isAll || minutes.firstKey() + MINUTE_MS <= nowMs)) {
            Map.Entry<Long, Map<GroupKey, long[]>> first = minutes.pollFirstEntry();
            List<Group> groups = new ArrayList<>();
            first.getValue().forEach((key, count) -> groups.add(new Group(key.subscription(), key.topic(), count[0])));
            Minute minute = new Minute(first.getKey(), groups);
            pending -= minute.increments();
            due.add(minute);
        }
        return due;
    }

    synchronized long pending() {
        return pending;
    }
}
