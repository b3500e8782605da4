package dev.baton.exclusivity;

import java.nio.charset.StandardCharsets;

/**
 * Which keys are counted when only a fraction of them is (keySampleRate below 1): a key is in
 * the sample when a stable hash of it (32-bit FNV-1a of its UTF-8 bytes) falls below the rate.
 * Per key, not per message: every worker of every JVM picks the same keys, and a counted key has
 * every entry and exit counted, so an overlap on it is seen exactly as without sampling.
 */
final class KeySample {
    private static final long HASH_RANGE = 1L << 32;
    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;

    private final boolean isAll;
    /** Keys whose hash is below this are counted. */
    private final long threshold;

    KeySample(double rate) {
        this.isAll = rate >= 1.0;
        this.threshold = (long) Math.ceil(rate * HASH_RANGE);
    }

    boolean isCounted(String key) {
        return isAll || (hash(key) & 0xFFFFFFFFL) < threshold;
    }

    static int hash(String key) {
        int hash = FNV_OFFSET;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xFF;
            hash *= FNV_PRIME;
        }
        return hash;
    }
}
