package dev.baton.exclusivity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends events and per-minute counts to Baton from one background thread: every flushIntervalMs,
 * at once when a batch is full, and everything at close. A request that fails for a reason that
 * may pass (Baton unreachable, 408, 429, 5xx) is tried again with capped, jittered backoff for as
 * long as it takes; meanwhile new events wait in the bounded buffer. Retries are safe: event ids
 * and (client, minute) make a re-sent body write nothing new. A refused request (other 4xx) is
 * dropped and counted. Nothing here blocks or throws at the consumer.
 */
final class BatonReporter implements AutoCloseable {
    private static final String EVENTS_PATH = "api/v1/exclusivity-events";
    private static final String COUNTS_PATH = "api/v1/exclusivity-counts";
    private static final long RETRY_BASE_MS = 250;
    private static final long RETRY_MAX_MS = 10_000;
    private static final long MAX_RETRY_AFTER_MS = 30_000;
    private static final long CLOSE_WAIT_MS = 10_000;
    /** Groups per counts body, as Baton takes them. */
    private static final int MAX_COUNT_GROUPS = 1_000;

    private final BatonSettings settings;
    private final BatonPoster poster;
    private final EventBuffer events;
    private final MinuteCounts counts;
    private final ObjectMapper json = new ObjectMapper();
    /** A restart counts under a new id: Baton keeps one body per (client, minute, group). */
    private final String clientId = UUID.randomUUID().toString();
    private final AtomicLong countsSent = new AtomicLong();
    private final AtomicLong countsDropped = new AtomicLong();
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final Object signal = new Object();
    private final Thread thread;
    private boolean isWoken;
    private volatile boolean isClosing;
    private volatile long closeDeadlineMs = Long.MAX_VALUE;

    BatonReporter(BatonSettings settings, EventBuffer events, MinuteCounts counts) {
        this.settings = settings;
        this.poster = new BatonPoster(settings);
        this.events = events;
        this.counts = counts;
        this.thread = new Thread(this::run, "baton-exclusivity-reporter");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Sends now rather than at the next interval (a full batch). */
    void wake() {
        synchronized (signal) {
            isWoken = true;
            signal.notifyAll();
        }
    }

    /** Waits (at most timeoutMs) until every event added before this call is sent or dropped. */
    boolean flush(long timeoutMs) throws InterruptedException {
        long target = events.added();
        long deadline = System.currentTimeMillis() + timeoutMs;
        wake();
        while (!events.isSettled(target)) {
            if (System.currentTimeMillis() >= deadline) return false;
            Thread.sleep(5);
        }
        return true;
    }

    long countsSent() {
        return countsSent.get();
    }

    long countsDropped() {
        return countsDropped.get();
    }

    /** The last reason a request did not go through, or null. */
    String lastError() {
        return lastError.get();
    }

    /** Sends everything, the current minute's counts too, for at most 10 s; what is left then is counted as dropped. */
    @Override
    public void close() {
        closeDeadlineMs = System.currentTimeMillis() + CLOSE_WAIT_MS;
        isClosing = true;
        wake();
        try {
            thread.join(CLOSE_WAIT_MS + settings.requestTimeoutMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) thread.interrupt();
    }

    private void run() {
        try {
            while (true) {
                synchronized (signal) {
                    if (!isWoken && !isClosing) signal.wait(settings.flushIntervalMs());
                    isWoken = false;
                }
                boolean isFinal = isClosing;
                for (MinuteCounts.Minute minute : counts.take(System.currentTimeMillis(), isFinal)) sendMinute(minute);
                while (events.size() > 0) {
                    List<CounterEvent> batch = events.take(settings.maxBatch());
                    sendEvents(batch);
                }
                if (isFinal) return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // Whatever is still here when the thread stops was not sent: count it, never lose it silently.
            List<CounterEvent> left = events.take(Integer.MAX_VALUE);
            events.settle(0, left.size());
            for (MinuteCounts.Minute minute : counts.take(Long.MAX_VALUE, true)) countsDropped.addAndGet(minute.increments());
        }
    }

    private void sendEvents(List<CounterEvent> batch) throws InterruptedException {
        BatonPoster.Answer answer = postWithRetries(EVENTS_PATH, bytesOf(batch), batch.size() + " events");
        if (answer == null || !answer.isOk()) {
            events.settle(0, batch.size());
            return;
        }
        int rejected = countRejected(answer.body());
        events.settle(batch.size() - rejected, rejected);
    }

    private void sendMinute(MinuteCounts.Minute minute) throws InterruptedException {
        List<MinuteCounts.Group> groups = minute.groups();
        for (int i = 0; i < groups.size(); i += MAX_COUNT_GROUPS) {
            List<MinuteCounts.Group> part = groups.subList(i, Math.min(groups.size(), i + MAX_COUNT_GROUPS));
            long increments = part.stream().mapToLong(MinuteCounts.Group::increments).sum();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("clientId", clientId);
            body.put("service", settings.service());
            body.put("worker", settings.worker());
            body.put("mode", ReportingMode.VIOLATIONS_AND_COUNTS.wireName());
            body.put("minute", Instant.ofEpochMilli(minute.startMs()).toString());
            body.put("counts", part);
            BatonPoster.Answer answer = postWithRetries(COUNTS_PATH, bytesOf(body), "the counts of " + body.get("minute"));
            (answer != null && answer.isOk() ? countsSent : countsDropped).addAndGet(increments);
        }
    }

    /** The last answer (a success or a refusal), or null when it never went through before close's deadline. */
    private BatonPoster.Answer postWithRetries(String path, byte[] body, String what) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Long retryAfterMs = null;
            try {
                BatonPoster.Answer answer = poster.post(path, body);
                if (answer.isOk()) return answer;
                lastError.set("Baton answered " + answer.status() + " to " + what + ": " + truncate(answer.body()));
                if (!answer.isRetryable()) return answer;
                retryAfterMs = answer.retryAfterMs();
            } catch (IOException e) {
                lastError.set("cannot reach Baton at " + settings.batonUrl() + ": " + e);
            }
            if (isClosing && System.currentTimeMillis() >= closeDeadlineMs) return null;
            long waitMs = retryAfterMs != null ? Math.min(MAX_RETRY_AFTER_MS, retryAfterMs) : backoffMs(attempt);
            sleepUnlessClosingPastDeadline(waitMs);
        }
    }

    private void sleepUnlessClosingPastDeadline(long waitMs) throws InterruptedException {
        long until = System.currentTimeMillis() + waitMs;
        while (System.currentTimeMillis() < until) {
            if (isClosing && System.currentTimeMillis() >= closeDeadlineMs) return;
            Thread.sleep(Math.min(100, Math.max(1, until - System.currentTimeMillis())));
        }
    }

    /** Full jitter: many workers that failed together do not retry together. */
    private static long backoffMs(int attempt) {
        long cap = Math.min(RETRY_MAX_MS, RETRY_BASE_MS << Math.min(attempt - 1, 20));
        return ThreadLocalRandom.current().nextLong(cap + 1);
    }

    /** A 200 lists the events Baton refused (not retried: they would fail again). */
    private int countRejected(String body) {
        try {
            JsonNode errors = json.readTree(body).path("errors");
            if (errors.isArray() && !errors.isEmpty()) {
                lastError.set("Baton refused " + errors.size() + " event(s); first: " + truncate(errors.get(0).toString()));
                return errors.size();
            }
            return 0;
        } catch (JsonProcessingException e) {
            lastError.set("Baton answered 2xx with a body that is not JSON: " + truncate(body));
            return 0;
        }
    }

    private byte[] bytesOf(Object value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private static String truncate(String text) {
        return text == null ? "" : text.length() > 300 ? text.substring(0, 300) : text;
    }
}
