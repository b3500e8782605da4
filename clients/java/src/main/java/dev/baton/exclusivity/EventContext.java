package dev.baton.exclusivity;

/**
 * Where a unit of work came from, attached to its event. Every field may be null.
 *
 * @param topic the full topic name, e.g. persistent://tenant/ns/orders
 * @param subscription the subscription name
 * @param partition the partition index, or null when the topic is not partitioned
 * @param lock the lock the work ran under, "&lt;cluster&gt;/&lt;lock key&gt;" as Baton's configuration names it
 */
public record EventContext(String topic, String subscription, Integer partition, String lock) {
    public static final EventContext NONE = new EventContext(null, null, null, null);

    /** Work that ran under a lock held outside Pulsar, e.g. "redis-main/lock:daily-job". */
    public static EventContext underLock(String lock) {
        return new EventContext(null, null, null, lock);
    }
}
