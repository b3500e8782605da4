package dev.baton.exclusivity.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.exclusivity.BatonExclusivityInterceptor;
import dev.baton.exclusivity.BatonSettings;
import dev.baton.exclusivity.ExclusivityCounter;
import dev.baton.exclusivity.ReportingMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * One JVM worker for Baton's tests: a real Pulsar consumer with the interceptor, driven over
 * stdin/stdout. It acknowledges each message at once, except one whose value starts with
 * holdPrefix: it stays inside (prints "holding key value") until "release" arrives on stdin, and
 * sleeps processMs on every other (a random time from processMs to processMaxMs when that is given). With ackMode=cumulative it acknowledges cumulatively: every
 * tenth message, and each partition's last one once nothing more arrives. It subscribes when "subscribe" arrives (a JVM takes seconds to
 * start: a test starts it early and joins it when it means to). Commands: subscribe, release,
 * stats, flush, close. Output: started, ready, holding/acked key value, stats {json},
 * flushed true|false, closed {json}.
 */
public final class ConsumerWorker {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static volatile CountDownLatch release = new CountDownLatch(1);
    private static volatile boolean isClosing;
    private static final CountDownLatch subscribe = new CountDownLatch(1);

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        BatonSettings.Builder settings = BatonSettings.builder()
                .batonUrl(args.get("batonUrl"))
                .batonToken(args.get("token"))
                .redisUrl(args.get("redisUrl", "redis://127.0.0.1:6379"))
                .keyPrefix(args.get("keyPrefix"))
                .report(ReportingMode.valueOf(args.get("report", "ALL")))
                .flushIntervalMs(args.getInt("flushIntervalMs", 200))
                .maxBufferedEvents(args.getInt("maxBufferedEvents", 100_000))
                .lossLogIntervalMs(args.getInt("lossLogIntervalMs", 60_000))
                .keySampleRate(Double.parseDouble(args.get("keySampleRate", "1")));
        if (!args.get("service", "").isEmpty()) settings.service(args.get("service"));
        BatonExclusivityInterceptor<String> interceptor = new BatonExclusivityInterceptor<>(settings.build());
        String holdPrefix = args.get("holdPrefix", "");
        int processMs = args.getInt("processMs", 0);
        int processMaxMs = Math.max(processMs, args.getInt("processMaxMs", processMs));
        // "cumulative": every tenth message acknowledges all before it, and the last one at close.
        boolean isCumulative = args.get("ackMode", "single").equals("cumulative");

        try (PulsarClient client = PulsarClient.builder().serviceUrl(args.get("serviceUrl")).build()) {
            Thread commands = new Thread(() -> readCommands(interceptor), "commands");
            commands.setDaemon(true);
            commands.start();
            say("started");
            subscribe.await();
            Consumer<String> consumer = client.newConsumer(Schema.STRING)
                    .topic(args.get("topic"))
                    .subscriptionName(args.get("subscription"))
                    .subscriptionType(SubscriptionType.valueOf(args.get("type")))
                    .consumerName(args.get("name"))
                    .priorityLevel(args.getInt("priority", 0))
                    .receiverQueueSize(args.getInt("receiverQueue", 1000))
                    .intercept(interceptor)
                    .subscribe();
            say("ready");
            // Per partition: a cumulative acknowledgement covers its own partition only.
            Map<String, Message<String>> unacknowledged = new HashMap<>();
            int received = 0;
            while (!isClosing) {
                Message<String> message = consumer.receive(100, TimeUnit.MILLISECONDS);
                if (message == null) {
                    for (Message<String> last : unacknowledged.values()) consumer.acknowledgeCumulative(last);
                    unacknowledged.clear();
                    continue;
                }
                received++;
                if (!holdPrefix.isEmpty() && message.getValue().startsWith(holdPrefix)) {
                    say("holding " + message.getKey() + " " + message.getValue());
                    release.await();
                } else if (processMaxMs > 0) {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(processMs, processMaxMs + 1));
                }
                if (!isCumulative) {
                    consumer.acknowledge(message);
                } else if (received % 10 == 0) {
                    consumer.acknowledgeCumulative(message);
                    unacknowledged.remove(message.getTopicName());
                } else {
                    unacknowledged.put(message.getTopicName(), message);
                }
                say("acked " + message.getKey() + " " + message.getValue());
            }
            consumer.close();
            interceptor.close();
        }
        say("closed " + statsOf(interceptor.counter()));
    }

    private static void readCommands(BatonExclusivityInterceptor<String> interceptor) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "subscribe" -> subscribe.countDown();
                    case "release" -> {
                        CountDownLatch current = release;
                        release = new CountDownLatch(1);
                        current.countDown();
                    }
                    case "stats" -> say("stats " + statsOf(interceptor.counter()));
                    case "flush" -> say("flushed " + (interceptor.counter() == null || interceptor.counter().flush(30_000)));
                    case "close" -> {
                        isClosing = true;
                        subscribe.countDown();
                        release.countDown();
                    }
                    default -> say("error unknown command " + line);
                }
            }
            // stdin closed: the test that drove this worker is gone.
            isClosing = true;
            subscribe.countDown();
            release.countDown();
        } catch (Exception e) {
            say("error " + e);
        }
    }

    private static String statsOf(ExclusivityCounter counter) {
        try {
            return counter == null ? "null" : JSON.writeValueAsString(counter.stats());
        } catch (Exception e) {
            return "\"" + e + "\"";
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
