package dev.baton.exclusivity;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * Everything the counter and the interceptor are told, checked once: {@link Builder#build()}
 * throws an {@link IllegalArgumentException} whose one-line message names the bad setting.
 */
public final class BatonSettings {
    /** The TypeScript client's default, so that JVM and Node workers of a service share counters. */
    public static final String DEFAULT_KEY_PREFIX = "baton:exclusivity:";
    /** Baton takes at most this many events per request by default. */
    public static final int MAX_BATCH_LIMIT = 10_000;

    private final URI batonUrl;
    private final String batonToken;
    private final String redisHost;
    private final int redisPort;
    private final String keyPrefix;
    private final long keyTtlMs;
    private final String service;
    private final String worker;
    private final ReportingMode report;
    private final long flushIntervalMs;
    private final int maxBatch;
    private final int maxBufferedEvents;
    private final int maxQueuedCounterOps;
    private final int requestTimeoutMs;
    private final int redisTimeoutMs;
    private final long lossLogIntervalMs;
    private final double keySampleRate;

    private BatonSettings(Builder b) {
        this.batonUrl = b.batonUrl;
        this.batonToken = b.batonToken;
        this.redisHost = b.redisHost;
        this.redisPort = b.redisPort;
        this.keyPrefix = b.keyPrefix;
        this.keyTtlMs = b.keyTtlMs;
        this.service = b.service;
        this.worker = b.worker;
        this.report = b.report;
        this.flushIntervalMs = b.flushIntervalMs;
        this.maxBatch = b.maxBatch;
        this.maxBufferedEvents = b.maxBufferedEvents;
        this.maxQueuedCounterOps = b.maxQueuedCounterOps;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.redisTimeoutMs = b.redisTimeoutMs;
        this.lossLogIntervalMs = b.lossLogIntervalMs;
        this.keySampleRate = b.keySampleRate;
    }

    public static Builder builder() {
        return new Builder();
    }

    public URI batonUrl() { return batonUrl; }
    public String batonToken() { return batonToken; }
    public String redisHost() { return redisHost; }
    public int redisPort() { return redisPort; }
    public String keyPrefix() { return keyPrefix; }
    public long keyTtlMs() { return keyTtlMs; }
    /** Null when not set: the interceptor then uses the consumer's subscription. */
    public String service() { return service; }
    /** Null when not set: the interceptor then uses the consumer's name. */
    public String worker() { return worker; }
    public ReportingMode report() { return report; }
    public long flushIntervalMs() { return flushIntervalMs; }
    public int maxBatch() { return maxBatch; }
    public int maxBufferedEvents() { return maxBufferedEvents; }
    public int maxQueuedCounterOps() { return maxQueuedCounterOps; }
    public int requestTimeoutMs() { return requestTimeoutMs; }
    public int redisTimeoutMs() { return redisTimeoutMs; }
    public long lossLogIntervalMs() { return lossLogIntervalMs; }
    public double keySampleRate() { return keySampleRate; }

    /** The same settings with service and worker filled in where they were not set. */
    BatonSettings withNames(String defaultService, String defaultWorker) {
        Builder b = toBuilder();
        if (service == null) b.service(defaultService);
        if (worker == null) b.worker(defaultWorker);
        return b.build();
    }

    private Builder toBuilder() {
        Builder b = new Builder();
        b.batonUrl = batonUrl;
        b.batonToken = batonToken;
        b.redisHost = redisHost;
        b.redisPort = redisPort;
        b.keyPrefix = keyPrefix;
        b.keyTtlMs = keyTtlMs;
        b.service = service;
        b.worker = worker;
        b.report = report;
        b.flushIntervalMs = flushIntervalMs;
        b.maxBatch = maxBatch;
        b.maxBufferedEvents = maxBufferedEvents;
        b.maxQueuedCounterOps = maxQueuedCounterOps;
        b.requestTimeoutMs = requestTimeoutMs;
        b.redisTimeoutMs = redisTimeoutMs;
        b.lossLogIntervalMs = lossLogIntervalMs;
        b.keySampleRate = keySampleRate;
        return b;
    }

    static IllegalArgumentException bad(String setting, String problem, Object got) {
        return new IllegalArgumentException("baton-exclusivity setting " + setting + ": " + problem + " (got " + got + ")");
    }

    public static final class Builder {
        private URI batonUrl;
        private String batonToken;
        private String redisHost = "127.0.0.1";
        private int redisPort = 6379;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private long keyTtlMs = 60_000;
        private String service;
        private String worker;
        private ReportingMode report = ReportingMode.ALL;
        private long flushIntervalMs = 1_000;
        private int maxBatch = 1_000;
        private int maxBufferedEvents = 100_000;
        private int maxQueuedCounterOps = 100_000;
        private int requestTimeoutMs = 10_000;
        private int redisTimeoutMs = 2_000;
        private long lossLogIntervalMs = 60_000;
        private double keySampleRate = 1.0;
        private String badUrl;
        private String badRedis;

        private Builder() {}

        /** Baton's base URL, e.g. http://baton.internal:3000. Required. */
        public Builder batonUrl(String url) {
            try {
                this.batonUrl = new URI(Objects.requireNonNullElse(url, ""));
                this.badUrl = null;
            } catch (URISyntaxException e) {
                this.batonUrl = null;
                this.badUrl = url;
            }
            return this;
        }

        /** A bearer token from Baton's `npm run token:create`. Required. */
        public Builder batonToken(String token) { this.batonToken = token; return this; }

        /** The Redis every worker of the service shares, "redis://host:port" (default redis://127.0.0.1:6379). */
        public Builder redisUrl(String url) {
            try {
                URI uri = new URI(Objects.requireNonNullElse(url, ""));
                if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) throw new URISyntaxException(String.valueOf(url), "not redis://host:port");
                this.redisHost = uri.getHost();
                this.redisPort = uri.getPort() == -1 ? 6379 : uri.getPort();
                this.badRedis = null;
            } catch (URISyntaxException e) {
                this.badRedis = url;
            }
            return this;
        }

        /** Namespace of the Redis keys (default "baton:exclusivity:"); the service name follows it. */
        public Builder keyPrefix(String prefix) { this.keyPrefix = prefix; return this; }
        /** How long an entry may stay inside a key before it is forgotten (default 60 s): longer than your longest processing. */
        public Builder keyTtlMs(long ms) { this.keyTtlMs = ms; return this; }
        /** The service: workers of one service count together. Default for the interceptor: the subscription. */
        public Builder service(String service) { this.service = service; return this; }
        /** This worker. Default for the interceptor: the consumer's name. */
        public Builder worker(String worker) { this.worker = worker; return this; }
        public Builder report(ReportingMode mode) { this.report = mode; return this; }
        /** Longest wait before buffered events are sent (default 1000 ms). */
        public Builder flushIntervalMs(long ms) { this.flushIntervalMs = ms; return this; }
        /** Events per request (default 1000, at most 10,000). */
        public Builder maxBatch(int events) { this.maxBatch = events; return this; }
        /** Events kept while Baton is unreachable (default 100,000); beyond that the oldest waiting go, counted. */
        public Builder maxBufferedEvents(int events) { this.maxBufferedEvents = events; return this; }
        /** Enters and exits waiting for Redis (default 100,000; enters may fill half); beyond that they are not counted, counted. */
        public Builder maxQueuedCounterOps(int ops) { this.maxQueuedCounterOps = ops; return this; }
        public Builder requestTimeoutMs(int ms) { this.requestTimeoutMs = ms; return this; }
        public Builder redisTimeoutMs(int ms) { this.redisTimeoutMs = ms; return this; }
        /** How often a log line says what could not be counted or sent, when anything could not (default 60 s). */
        public Builder lossLogIntervalMs(long ms) { this.lossLogIntervalMs = ms; return this; }
        /**
         * The fraction of keys counted (default 1: all). A key is in or out of the sample by a stable
         * hash of it, the same in every worker; a counted key has every entry counted, so an overlap
         * on it is seen as without sampling, and an overlap on a key outside it is not seen. Cost
         * (Redis, events, Baton's ingest) falls with the rate.
         */
        public Builder keySampleRate(double rate) { this.keySampleRate = rate; return this; }

        public BatonSettings build() {
            if (badUrl != null || batonUrl == null) throw bad("batonUrl", "is required, an http(s) URL", badUrl);
            if (!"http".equals(batonUrl.getScheme()) && !"https".equals(batonUrl.getScheme()) || batonUrl.getHost() == null) {
                throw bad("batonUrl", "must be an http(s) URL with a host", batonUrl);
            }
            if (batonToken == null || batonToken.isBlank()) throw bad("batonToken", "is required", batonToken == null ? "nothing" : "a blank string");
            if (badRedis != null) throw bad("redisUrl", "must be redis://host:port", badRedis);
            if (keyPrefix == null) throw bad("keyPrefix", "must not be null", null);
            requireText("service", service);
            requireText("worker", worker);
            if (report == null) throw bad("report", "must be one of ALL, VIOLATIONS_AND_COUNTS, VIOLATIONS", null);
            requireRange("keyTtlMs", keyTtlMs, 1, Integer.MAX_VALUE);
            requireRange("flushIntervalMs", flushIntervalMs, 1, 3_600_000);
            requireRange("maxBatch", maxBatch, 1, MAX_BATCH_LIMIT);
            requireRange("maxBufferedEvents", maxBufferedEvents, 1, Integer.MAX_VALUE);
            requireRange("maxQueuedCounterOps", maxQueuedCounterOps, 1, Integer.MAX_VALUE);
            requireRange("requestTimeoutMs", requestTimeoutMs, 1, Integer.MAX_VALUE);
            requireRange("redisTimeoutMs", redisTimeoutMs, 1, Integer.MAX_VALUE);
            requireRange("lossLogIntervalMs", lossLogIntervalMs, 1, Long.MAX_VALUE);
            if (!(keySampleRate > 0 && keySampleRate <= 1)) throw bad("keySampleRate", "must be above 0 and at most 1", keySampleRate);
            return new BatonSettings(this);
        }

        /** Optional names must still be names when given. */
        private static void requireText(String setting, String value) {
            if (value != null && value.isBlank()) throw bad(setting, "must not be blank when set", "a blank string");
        }

        private static void requireRange(String setting, long value, long min, long max) {
            if (value < min || value > max) throw bad(setting, "must be between " + min + " and " + max, value);
        }
    }
}
