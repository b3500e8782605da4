package dev.baton.exclusivity;

import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The mutual-exclusivity counter around a unit of work, for any code (a Redis or ZooKeeper lock
 * holder, a scheduled job); {@link BatonExclusivityInterceptor} uses it for Pulsar consumers.
 *
 * <pre>{@code
 * try (var inside = counter.enter(key, "redis-main/lock:daily-job")) {
 *     runTheJob();
 * }
 * }</pre>
 *
 * Entering records this worker inside the key in Redis and learns, in the same atomic step, who
 * else is inside; an entry that finds another is a violation, reported to Baton with the others'
 * names and entry times. The counter is a measurement, not a lock: enter never waits for Redis or
 * Baton and never throws because of them. What could not be counted or sent is in
 * {@link #stats()} and in a log line at most once per lossLogIntervalMs.
 */
public final class ExclusivityCounter implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.baton.exclusivity");

    private final BatonSettings settings;
    private final String keyPrefix;
    private final RedisCounter redis;
    private final EventBuffer events;
    private final MinuteCounts counts = new MinuteCounts();
    private final BatonReporter reporter;
    private final ScheduledExecutorService lossLog;
    private final AtomicLong entered = new AtomicLong();
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong notSampled = new AtomicLong();
    private final KeySample sample;
    private final AtomicBoolean isClosed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(this::close, "baton-exclusivity-shutdown");
    private ExclusivityStats lastLogged;

    private ExclusivityCounter(BatonSettings settings) {
        this.settings = settings;
        this.keyPrefix = settings.keyPrefix() + settings.service() + ":";
        this.sample = new KeySample(settings.keySampleRate());
        this.events = new EventBuffer(settings.maxBufferedEvents());
        this.redis = new RedisCounter(settings);
        this.reporter = new BatonReporter(settings, events, counts);
        this.lastLogged = stats();
        this.lossLog = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "baton-exclusivity-loss-log");
            thread.setDaemon(true);
            return thread;
        });
        lossLog.scheduleAtFixedRate(this::logLosses, settings.lossLogIntervalMs(), settings.lossLogIntervalMs(), TimeUnit.MILLISECONDS);
        // A service that exits without closing still sends what it buffered (bounded in time).
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts a counter; settings must name the service and the worker. */
    public static ExclusivityCounter start(BatonSettings settings) {
        Objects.requireNonNull(settings, "settings");
        if (settings.service() == null) throw BatonSettings.bad("service", "is required for an ExclusivityCounter", "nothing");
        if (settings.worker() == null) throw BatonSettings.bad("worker", "is required for an ExclusivityCounter", "nothing");
        return new ExclusivityCounter(settings);
    }

    /** Enters key; close the answer (try-with-resources) when the work is done. */
    public Inside enter(String key) {
        return enter(key, EventContext.NONE);
    }

    /** Enters key for work that runs under lock, "&lt;cluster&gt;/&lt;lock key&gt;" as Baton's configuration names it. */
    public Inside enter(String key, String lock) {
        return enter(key, EventContext.underLock(lock));
    }

    public Inside enter(String key, EventContext context) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
        Objects.requireNonNull(context, "context");
        if (!isSampled(key)) return new Inside(null, null);
        String redisKey = keyPrefix + key + RedisCounter.INSIDE_KEY_SUFFIX;
        String entryId = randomUuid();
        boolean isQueued = !isClosed.get()
                && redis.submit(new RedisCounter.Enter(redisKey, entryId, settings.worker(), result -> onEntered(key, context, result)));
        return new Inside(isQueued ? redisKey : null, entryId);
    }

    /** Whether key is in the sample (keySampleRate); an entry into a key outside it is counted in notSampled only. */
    boolean isSampled(String key) {
        if (sample.isCounted(key)) return true;
        notSampled.incrementAndGet();
        return false;
    }

    /** What this counter did so far. */
    public ExclusivityStats stats() {
        return new ExclusivityStats(
                entered.get(),
                violations.get(),
                redis.notCounted(),
                redis.queued(),
                events.sent(),
                events.size(),
                events.dropped(),
                reporter.countsSent(),
                counts.pending(),
                reporter.countsDropped(),
                notSampled.get());
    }

    /** Waits (at most timeoutMs) until what was entered so far reached Redis and its events reached Baton. */
    public boolean flush(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (redis.queued() > 0) {
            if (System.currentTimeMillis() >= deadline) return false;
            Thread.sleep(2);
        }
        return reporter.flush(Math.max(0, deadline - System.currentTimeMillis()));
    }

    /** Sends what is queued and buffered (bounded in time), then stops; a closed counter counts nothing more. */
    @Override
    public void close() {
        if (!isClosed.compareAndSet(false, true)) return;
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is exiting: the hook runs close() too, and returns at once.
            }
        }
        redis.close();
        reporter.close();
        lossLog.shutdownNow();
        logLosses();
    }

    private void onEntered(String key, EventContext context, EntryResult result) {
        long observedAt = System.currentTimeMillis();
        boolean isViolation = result.othersCount() > 0;
        entered.incrementAndGet();
        if (isViolation) violations.incrementAndGet();
        if (settings.report() == ReportingMode.ALL || isViolation) {
            // Entry ages are on Redis's clock; subtracted from this worker's observedAt they put
            // the entry times on the same clock as the event.
            List<CounterEvent.OtherInsideEvent> others = isViolation
                    ? result.others().stream().map(o -> new CounterEvent.OtherInsideEvent(o.worker(), observedAt - o.insideForMs())).toList()
                    : null;
            CounterEvent event = new CounterEvent(randomUuid(), key, result.othersCount(), settings.service(), settings.worker(),
                    context.topic(), context.subscription(), context.partition(), observedAt, others, context.lock());
            events.add(event);
            if (events.size() >= settings.maxBatch()) reporter.wake();
        } else if (settings.report() == ReportingMode.VIOLATIONS_AND_COUNTS) {
            counts.record(observedAt, context.subscription(), context.topic());
        }
    }

    private synchronized void logLosses() {
        ExclusivityStats now = stats();
        long notCounted = now.notCounted() - lastLogged.notCounted();
        long eventsDropped = now.eventsDropped() - lastLogged.eventsDropped();
        long countsDropped = now.countsDropped() - lastLogged.countsDropped();
        boolean isBatonBehind = now.eventsBuffered() > settings.maxBatch() && now.eventsSent() == lastLogged.eventsSent();
        lastLogged = now;
        if (notCounted == 0 && eventsDropped == 0 && countsDropped == 0 && !isBatonBehind) return;
        LOG.log(System.Logger.Level.WARNING, String.format(
                "baton-exclusivity %s/%s: %d entries or exits not counted (last Redis error: %s), %d events and %d counted increments dropped, %d events waiting (last Baton error: %s)",
                settings.service(), settings.worker(), notCounted, redis.lastError(), eventsDropped, countsDropped, now.eventsBuffered(), reporter.lastError()));
    }

    /** A random (version 4) UUID without SecureRandom's lock: ids need to be unique, not secret. */
    static String randomUuid() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long most = (random.nextLong() & 0xFFFFFFFFFFFF0FFFL) | 0x0000000000004000L;
        long least = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(most, least).toString();
    }

    /** This worker inside a key; {@link #close()} leaves it (once; later calls do nothing). */
    public final class Inside implements AutoCloseable {
        private final String redisKey;
        private final String entryId;
        private final AtomicBoolean isLeft = new AtomicBoolean();

        private Inside(String redisKey, String entryId) {
            this.redisKey = redisKey;
            this.entryId = entryId;
        }

        @Override
        public void close() {
            // An entry that never reached the queue (or was outside the sample) has nothing to leave.
            if (redisKey == null || !isLeft.compareAndSet(false, true)) return;
            redis.submit(new RedisCounter.Exit(redisKey, entryId));
        }
    }
}
