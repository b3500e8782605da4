package dev.baton.exclusivity;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One counter event as Baton's POST /api/v1/exclusivity-events takes it: the same fields as the
 * TypeScript client's CounterEvent. Absent fields are left out of the JSON.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record CounterEvent(
        String id,
        String key,
        int counter,
        String service,
        String worker,
        String topic,
        String subscription,
        Integer partition,
        long observedAt,
        List<OtherInsideEvent> othersInside,
        String lock) {

    /** Another worker inside the key, its entry time in epoch ms on this worker's clock. */
    record OtherInsideEvent(String worker, long enteredAt) {}
}
