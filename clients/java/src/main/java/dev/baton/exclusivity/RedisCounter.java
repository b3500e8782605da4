package dev.baton.exclusivity;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Who is inside each key, in Redis: the same scripts and key layout as Baton's TypeScript client
 * (lib/exclusivity-client/redis-counter.ts), so JVM and Node workers of a service count together.
 *
 * <p>Enters and exits never wait for Redis: they join a bounded queue that one thread sends in
 * pipelines over one connection, many operations per script call (BATCH_SCRIPT). One connection
 * and the order within a call keep each entry's exit after its enter; the pipeline is what keeps
 * a Redis round trip off the consumer's path. An operation that cannot be
 * queued (queue full) or sent (Redis down) is counted in {@link #notCounted()}, never waited for.
 */
final class RedisCounter implements AutoCloseable {
    /** At most this many others come back per violation (the count is exact), as in the TypeScript client. */
    static final int MAX_OTHERS_INSIDE = 10;
    /** Keeps the hash apart from the plain INCR counters of older clients under the same prefix. */
    static final String INSIDE_KEY_SUFFIX = ":inside";
    private static final int PIPELINE_MAX = 1_000;
    /**
     * Operations per script call: a call runs atomically, so this bounds how long it holds Redis
     * (about 1 ms) for other clients, the locks it may also serve among them.
     */
    static final int OPS_PER_CALL = 200;
    private static final long MAX_BACKOFF_MS = 2_000;

    // Identical to ENTER_SCRIPT in lib/exclusivity-client/redis-counter.ts: pruning, looking and
    // entering in one atomic step, entry times on Redis's clock (TIME), the one every worker shares.
    static final String ENTER_SCRIPT = """

            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            local ttl = tonumber(ARGV[3])
            local fields = redis.call('HGETALL', KEYS[1])
            local others = {}
            for i = 1, #fields, 2 do
              local value = fields[i + 1]
              local sep = string.find(value, ':', 1, true)
              local entered = sep and tonumber(string.sub(value, 1, sep - 1))
              if entered == nil or now - entered >= ttl then
                redis.call('HDEL', KEYS[1], fields[i])
              elseif fields[i] ~= ARGV[1] then
                others[#others + 1] = { entered, string.sub(value, sep + 1) }
              end
            end
            redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', now) .. ':' .. ARGV[2])
            redis.call('PEXPIRE', KEYS[1], ttl)
            table.sort(others, function(a, b) return a[1] < b[1] end)
            local reply = { #others }
            for i = 1, math.min(#others, tonumber(ARGV[4])) do
              reply[#reply + 1] = others[i][2]
              reply[#reply + 1] = now - others[i][1]
            end
            return reply""";
    // Redis deletes a hash when its last field goes.
    static final String EXIT_SCRIPT = "return redis.call('HDEL', KEYS[1], ARGV[1])";

    /**
     * Many enters and exits in one call: ENTER_SCRIPT and EXIT_SCRIPT as functions of their key and
     * arguments, applied in order. One call per OPS_PER_CALL operations instead of one per
     * operation is what keeps the counter's cost per message small, in this JVM (one command to
     * encode, one reply) and in Redis (one script invocation). KEYS: one per operation; ARGV: the
     * TTL and the most others to name, then per operation "enter" or "exit", its entry id and its
     * worker (empty for an exit). Answers one reply per operation, as the two scripts would.
     */
    static final String BATCH_SCRIPT = "local function enter(key, entryId, worker, ttlArg, maxOthersArg)"
            + ENTER_SCRIPT.replace("KEYS[1]", "key")
                    .replace("ARGV[1]", "entryId")
                    .replace("ARGV[2]", "worker")
                    .replace("ARGV[3]", "ttlArg")
                    .replace("ARGV[4]", "maxOthersArg")
            + "\nend\nlocal function exit(key, entryId)\n"
            + EXIT_SCRIPT.replace("KEYS[1]", "key").replace("ARGV[1]", "entryId")
            + """

            end
            local replies = {}
            for i = 1, #KEYS do
              local at = 3 * i
              if ARGV[at] == 'enter' then
                replies[i] = enter(KEYS[i], ARGV[at + 1], ARGV[at + 2], ARGV[1], ARGV[2])
              else
                replies[i] = exit(KEYS[i], ARGV[at + 1])
              end
            end
            return replies""";

    sealed interface Op permits Enter, Exit {}

    /** Records entryId (of worker) inside redisKey; onEntered runs on the counter's thread. */
    record Enter(String redisKey, String entryId, String worker, Consumer<EntryResult> onEntered) implements Op {}

    record Exit(String redisKey, String entryId) implements Op {}

    private final String host;
    private final int port;
    private final int timeoutMs;
    private final String ttlArg;
    private final String maxOthersArg;
    private final ArrayBlockingQueue<Op> queue;
    private final int enterLimit;
    /** Operations taken from the queue and not yet answered. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong notCounted = new AtomicLong();
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean isClosing;
    private Jedis jedis;
    private String batchSha;

    RedisCounter(BatonSettings settings) {
        this.host = settings.redisHost();
        this.port = settings.redisPort();
        this.timeoutMs = settings.redisTimeoutMs();
        this.ttlArg = Long.toString(settings.keyTtlMs());
        this.maxOthersArg = Integer.toString(MAX_OTHERS_INSIDE);
        this.queue = new ArrayBlockingQueue<>(settings.maxQueuedCounterOps());
        this.enterLimit = Math.max(1, settings.maxQueuedCounterOps() / 2);
        this.thread = new Thread(this::run, "baton-exclusivity-redis");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Queues op without waiting; false (and counted) when it cannot be queued. Enters may fill only
     * half the queue: the other half is kept for exits, because an entry whose exit was lost stays
     * in Redis until keyTtlMs, and the next entry into its key would count it as another worker.
     */
    boolean submit(Op op) {
        boolean hasRoom = op instanceof Exit || queue.size() < enterLimit;
        if (isClosing || !hasRoom || !queue.offer(op)) {
            notCounted.incrementAndGet();
            return false;
        }
        return true;
    }

    long notCounted() {
        return notCounted.get();
    }

    /** Operations not yet answered by Redis: queued, or sent and awaiting their reply. */
    int queued() {
        return queue.size() + inFlight.get();
    }

    /** The last Redis failure, or null when there was none. */
    String lastError() {
        return lastError.get();
    }

    /** Sends what is queued, for at most timeoutMs, then closes the connection. */
    @Override
    public void close() {
        isClosing = true;
        try {
            thread.join(Math.max(1_000, 2L * timeoutMs));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) thread.interrupt();
    }

    private void run() {
        List<Op> batch = new ArrayList<>(PIPELINE_MAX);
        long backoffMs = 0;
        // Connected before the first entry, so that the first entry does not wait for it.
        try {
            connect();
        } catch (JedisException e) {
            lastError.set(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        while (!isClosing || !queue.isEmpty()) {
            try {
                Op first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                batch.add(first);
                queue.drainTo(batch, PIPELINE_MAX - 1);
                inFlight.set(batch.size());
                backoffMs = send(batch) ? 0 : Math.min(MAX_BACKOFF_MS, Math.max(100, backoffMs * 2));
                batch.clear();
                inFlight.set(0);
                // While Redis is down, what queues up meanwhile is bounded by the queue.
                if (backoffMs > 0 && !isClosing) Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                break;
            }
        }
        notCounted.addAndGet(queue.size());
        queue.clear();
        disconnect();
    }

    /**
     * The batch in one pipeline of BATCH_SCRIPT calls; false when the connection failed (the batch
     * is counted as not counted).
     */
    private boolean send(List<Op> batch) {
        try {
            connect();
            Pipeline pipeline = jedis.pipelined();
            List<List<Op>> calls = new ArrayList<>();
            List<Response<Object>> replies = new ArrayList<>();
            for (int from = 0; from < batch.size(); from += OPS_PER_CALL) {
                List<Op> ops = batch.subList(from, Math.min(batch.size(), from + OPS_PER_CALL));
                calls.add(ops);
                replies.add(pipeline.evalsha(batchSha, keysOf(ops), argsOf(ops)));
            }
            pipeline.sync();
            for (int call = 0; call < calls.size(); call++) deliver(calls.get(call), replies.get(call));
            return true;
        } catch (JedisException e) {
            notCounted.addAndGet(batch.size());
            lastError.set(e.getClass().getSimpleName() + ": " + e.getMessage());
            disconnect();
            return false;
        }
    }

    private static List<String> keysOf(List<Op> ops) {
        List<String> keys = new ArrayList<>(ops.size());
        for (Op op : ops) keys.add(op instanceof Enter enter ? enter.redisKey() : ((Exit) op).redisKey());
        return keys;
    }

    private List<String> argsOf(List<Op> ops) {
        List<String> args = new ArrayList<>(2 + 3 * ops.size());
        args.add(ttlArg);
        args.add(maxOthersArg);
        for (Op op : ops) {
            if (op instanceof Enter enter) {
                args.add("enter");
                args.add(enter.entryId());
                args.add(enter.worker());
            } else {
                args.add("exit");
                args.add(((Exit) op).entryId());
                args.add("");
            }
        }
        return args;
    }

    /** One call's replies, one per operation in order; each enter's goes to its onEntered. */
    private void deliver(List<Op> ops, Response<Object> response) {
        try {
            if (!(response.get() instanceof List<?> replies) || replies.size() != ops.size()) {
                throw new IllegalStateException("Redis answered " + response.get() + " to the batch script, expected " + ops.size() + " replies");
            }
            for (int i = 0; i < ops.size(); i++) {
                if (ops.get(i) instanceof Enter enter) enter.onEntered().accept(toEntryResult(replies.get(i)));
            }
        } catch (JedisDataException e) {
            // NOSCRIPT (a SCRIPT FLUSH or a restarted Redis): reconnecting loads the script again.
            notCounted.addAndGet(ops.size());
            lastError.set(e.getMessage());
            if (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")) disconnect();
        } catch (IllegalStateException e) {
            notCounted.addAndGet(ops.size());
            lastError.set(e.getMessage());
        }
    }

    static EntryResult toEntryResult(Object reply) {
        if (!(reply instanceof List<?> list) || list.isEmpty() || !(list.get(0) instanceof Long count) || list.size() % 2 != 1) {
            throw new IllegalStateException("Redis answered " + reply + " to the enter script, expected [count, worker, ms, ...]");
        }
        List<EntryResult.OtherInside> others = new ArrayList<>((list.size() - 1) / 2);
        for (int i = 1; i < list.size(); i += 2) others.add(new EntryResult.OtherInside(text(list.get(i)), ((Number) list.get(i + 1)).longValue()));
        return new EntryResult(count.intValue(), others);
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    private void connect() {
        if (jedis != null) return;
        // RESP2: the scripts' replies are plain arrays of integers and strings.
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .clientName("baton-exclusivity")
                .autoNegotiateProtocol(false)
                .build();
        Jedis connection = new Jedis(new HostAndPort(host, port), config);
        try {
            batchSha = connection.scriptLoad(BATCH_SCRIPT);
        } catch (JedisException e) {
            connection.close();
            throw e;
        }
        jedis = connection;
    }

    private void disconnect() {
        if (jedis == null) return;
        try {
            jedis.close();
        } catch (JedisException e) {
            lastError.set("closing the Redis connection: " + e.getMessage());
        }
        jedis = null;
    }
}
