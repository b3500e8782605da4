package baton.redisson;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A Redisson client that takes and gives back locks when told to, so tests can watch what Redisson
 * really writes to Redis.
 *
 * java ... baton.redisson.LockContender redis://127.0.0.1:6379 [watchdogMs]
 *
 * Prints "client <id>" once connected, where id is the uuid Redisson puts in front of ":<thread id>"
 * in its lock hashes. Then reads commands from stdin, one per line:
 *   acquire <handle> lock|fair <name>   take the lock on the handle's own thread (blocks while held
 *                                       elsewhere: a fair lock queues the thread as a waiter)
 *   reenter <handle>                    take the handle's lock once more on the same thread
 *   release <handle>                    unlock as many times as it was taken
 * and answers "waiting|acquired|reentered|released <handle> <thread id> [hold count]" or
 * "error <handle> <message>". Locks are thread-bound in Redisson, so each handle gets its own
 * single-thread executor. EOF on stdin means the parent is gone: exit, releasing nothing (as a
 * crashed JVM would).
 */
public final class LockContender {
    private static final Map<String, Handle> HANDLES = new ConcurrentHashMap<>();

    private record Handle(ExecutorService thread, RLock lock) {}

    private LockContender() {}

    public static void main(String[] args) throws Exception {
        Config config = new Config();
        config.useSingleServer().setAddress(args[0]);
        if (args.length > 1) config.setLockWatchdogTimeout(Long.parseLong(args[1]));
        RedissonClient redisson = Redisson.create(config);
        say("client " + redisson.getId());

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words.length < 2) continue;
            try {
                handle(redisson, words);
            } catch (RuntimeException e) {
                say("error " + words[1] + " " + e);
            }
        }
        // Halt rather than shut down: a contender whose parent died behaves like a crashed holder.
        Runtime.getRuntime().halt(0);
    }

    private static void handle(RedissonClient redisson, String[] words) {
        String command = words[0];
        String name = words[1];
        switch (command) {
            case "acquire" -> {
                RLock lock = "fair".equals(words[2]) ? redisson.getFairLock(words[3]) : redisson.getLock(words[3]);
                Handle handle = new Handle(Executors.newSingleThreadExecutor(), lock);
                HANDLES.put(name, handle);
                handle.thread().submit(() -> {
                    say("waiting " + name + " " + Thread.currentThread().getId());
                    lock.lock();
                    say("acquired " + name + " " + Thread.currentThread().getId() + " " + lock.getHoldCount());
                });
            }
            case "reenter" -> {
                Handle handle = HANDLES.get(name);
                handle.thread().submit(() -> {
                    handle.lock().lock();
                    say("reentered " + name + " " + Thread.currentThread().getId() + " " + handle.lock().getHoldCount());
                });
            }
            case "release" -> {
                Handle handle = HANDLES.remove(name);
                handle.thread().submit(() -> {
                    while (handle.lock().isHeldByCurrentThread()) handle.lock().unlock();
                    say("released " + name + " " + Thread.currentThread().getId());
                });
                handle.thread().shutdown();
            }
            default -> say("error " + name + " unknown command " + command);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
