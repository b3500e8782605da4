package dev.baton.exclusivity.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.exclusivity.BatonSettings;
import dev.baton.exclusivity.ExclusivityCounter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * One holder of a Redis lock for Baton's tests, doing its work inside {@link ExclusivityCounter}
 * with no Pulsar anywhere: it takes lockKey with SET NX PX (value: its name), enters key naming
 * the lock it runs under, and stays inside until told to leave. It never extends the lock: a
 * holder that stays inside past lockTtlMs is the stalled holder whose lock expired. Driven over
 * stdin: acquire (waits for the lock, then enters; prints "inside"), leave (leaves, releases the
 * lock if still its own; prints "left held" or "left lost"), close (prints "closed {stats}").
 */
public final class LockHolder {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long RETRY_MS = 50;
    // Deletes the lock only while it is still this holder's (the usual safe release).
    private static final String RELEASE_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        String name = args.get("name");
        String lockKey = args.get("lockKey");
        String lockRef = args.get("lockRef");
        String key = args.get("key");
        long lockTtlMs = args.getInt("lockTtlMs", 1_000);
        URI redisUrl = URI.create(args.get("redisUrl", "redis://127.0.0.1:6379"));
        ExclusivityCounter counter = ExclusivityCounter.start(BatonSettings.builder()
                .batonUrl(args.get("batonUrl"))
                .batonToken(args.get("token"))
                .redisUrl(redisUrl.toString())
                .keyPrefix(args.get("keyPrefix"))
                .service(args.get("service"))
                .worker(name)
                .flushIntervalMs(200)
                .build());
        ExclusivityCounter.Inside inside = null;
        try (Jedis redis = new Jedis(redisUrl.getHost(), redisUrl.getPort() == -1 ? 6379 : redisUrl.getPort());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            say("started");
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "acquire" -> {
                        while (redis.set(lockKey, name, SetParams.setParams().nx().px(lockTtlMs)) == null) Thread.sleep(RETRY_MS);
                        inside = counter.enter(key, lockRef);
                        say("inside");
                    }
                    case "leave" -> {
                        if (inside != null) inside.close();
                        inside = null;
                        Object released = redis.eval(RELEASE_SCRIPT, List.of(lockKey), List.of(name));
                        say("left " + (Long.valueOf(1).equals(released) ? "held" : "lost"));
                    }
                    case "close" -> {
                        counter.flush(30_000);
                        counter.close();
                        say("closed " + JSON.writeValueAsString(counter.stats()));
                        return;
                    }
                    default -> say("error unknown command " + line);
                }
            }
        } finally {
            counter.close();
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
