package dev.baton.exclusivity.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.exclusivity.BatonExclusivityInterceptor;
import dev.baton.exclusivity.BatonSettings;
import dev.baton.exclusivity.ReportingMode;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.ConsumerInterceptor;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import redis.clients.jedis.Jedis;

/**
 * Consumes the same count keyed messages with and without the interceptor, on one broker in one
 * run, alternating (plain, noop, counted, plain, noop, counted...) so that neither side gets all
 * the warm-up; "noop" has an interceptor that does nothing, which is what Pulsar's client charges
 * for having one.
 * Each pass is its own subscription from the earliest message. Measured: messages per second from
 * the first receive to the last acknowledgement; per message, the receive-to-acknowledge loop time;
 * and, with the interceptor, the time its hooks (beforeConsume + onAcknowledge) take on the
 * consumer's thread, which is the latency it adds. Where the cost goes: this JVM's CPU time and
 * Redis's (INFO cpu; the machine's Redis, which other programs may use meanwhile) from the start
 * of a pass until its counter has sent everything to Redis and Baton. Prints one "result {json}"
 * line per pass and one "stats {json}" line per counted pass.
 */
public final class InterceptorBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        int count = args.getInt("count", 100_000);
        int keys = args.getInt("keys", 1_000);
        int rounds = args.getInt("rounds", 2);
        long workNanos = args.getInt("workMicros", 0) * 1_000L;
        String topic = args.get("topic");
        URI redisUrl = URI.create(args.get("redisUrl", "redis://127.0.0.1:6379"));
        try (PulsarClient client = PulsarClient.builder().serviceUrl(args.get("serviceUrl")).build()) {
            long produceStart = System.nanoTime();
            try (Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).blockIfQueueFull(true).create()) {
                for (int i = 0; i < count; i++) producer.newMessage().key("k-" + (i % keys)).value("m-" + i).sendAsync();
                producer.flush();
            }
            say("produced " + JSON.writeValueAsString(Map.of("count", count, "seconds", (System.nanoTime() - produceStart) / 1e9)));
            for (int round = 1; round <= rounds; round++) {
                CpuClock plainCpu = CpuClock.start(redisUrl);
                Map<String, Object> plain = consume(client, topic, count, "plain-" + round, null, workNanos);
                plain.putAll(plainCpu.spent());
                say("result " + JSON.writeValueAsString(plain));
                // What any interceptor costs in Pulsar's client (the hooks do nothing here): the
                // counted pass's cost beyond this one is the counter's.
                TimedInterceptor noop = new TimedInterceptor(new NoopInterceptor(), count);
                CpuClock noopCpu = CpuClock.start(redisUrl);
                Map<String, Object> noopResult = consume(client, topic, count, "noop-" + round, noop, workNanos);
                noopResult.put("hookMicros", noop.summary());
                noopResult.putAll(noopCpu.spent());
                say("result " + JSON.writeValueAsString(noopResult));
                BatonSettings settings = BatonSettings.builder()
                        .batonUrl(args.get("batonUrl"))
                        .batonToken(args.get("token"))
                        .keyPrefix(args.get("keyPrefix"))
                        .service(args.get("service"))
                        .worker("bench-" + round)
                        .report(ReportingMode.valueOf(args.get("report", "ALL")))
                        .keySampleRate(Double.parseDouble(args.get("keySampleRate", "1")))
                        .build();
                BatonExclusivityInterceptor<String> interceptor = new BatonExclusivityInterceptor<>(settings);
                TimedInterceptor timed = new TimedInterceptor(interceptor, count);
                CpuClock countedCpu = CpuClock.start(redisUrl);
                Map<String, Object> result = consume(client, topic, count, "counted-" + round, timed, workNanos);
                result.put("hookMicros", timed.summary());
                boolean isFlushed = interceptor.counter().flush(120_000);
                result.putAll(countedCpu.spent());
                say("result " + JSON.writeValueAsString(result));
                say("stats " + JSON.writeValueAsString(Map.of("subscription", "counted-" + round, "flushed", isFlushed, "stats", interceptor.counter().stats())));
                interceptor.close();
            }
        }
    }

    /**
     * Consumes count messages, spending workNanos of CPU on each between receive and acknowledge
     * (a consumer's own processing: with none, the loop is a few hundred nanoseconds a message).
     */
    private static Map<String, Object> consume(PulsarClient client, String topic, int count, String subscription, ConsumerInterceptor<String> interceptor, long workNanos)
            throws Exception {
        var builder = client.newConsumer(Schema.STRING)
                .topic(topic)
                .subscriptionName(subscription)
                .subscriptionType(SubscriptionType.Failover)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .consumerName(subscription);
        if (interceptor != null) builder.intercept(interceptor);
        long[] loopNanos = new long[count];
        long start = 0;
        try (Consumer<String> consumer = builder.subscribe()) {
            for (int i = 0; i < count; i++) {
                Message<String> message = consumer.receive(60, TimeUnit.SECONDS);
                if (message == null) throw new IllegalStateException(subscription + ": no message after " + i);
                long received = System.nanoTime();
                if (i == 0) start = received;
                work(message, workNanos);
                consumer.acknowledge(message);
                loopNanos[i] = System.nanoTime() - received;
            }
            long end = System.nanoTime();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("subscription", subscription);
            result.put("messages", count);
            result.put("seconds", (end - start) / 1e9);
            result.put("perSecond", Math.round(count / ((end - start) / 1e9)));
            result.put("ackMicros", summarize(loopNanos));
            return result;
        }
    }

    /** Busy for workNanos, on the message's bytes so that the JIT cannot drop it. */
    private static void work(Message<String> message, long workNanos) {
        if (workNanos <= 0) return;
        long until = System.nanoTime() + workNanos;
        byte[] data = message.getData();
        int hash = 0;
        while (System.nanoTime() < until) {
            for (byte b : data) hash = 31 * hash + b;
        }
        if (hash == 42) WORK_SINK.incrementAndGet();
    }

    private static final AtomicInteger WORK_SINK = new AtomicInteger();

    static Map<String, Double> summarize(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("p50", sorted[(int) (sorted.length * 0.50)] / 1e3);
        summary.put("p99", sorted[(int) (sorted.length * 0.99)] / 1e3);
        summary.put("p999", sorted[(int) (sorted.length * 0.999)] / 1e3);
        summary.put("max", sorted[sorted.length - 1] / 1e3);
        return summary;
    }

    /** This JVM's CPU time and Redis's (user + system, from INFO cpu) since start(). */
    private record CpuClock(URI redisUrl, long jvmNanos, double redisSeconds) {
        static CpuClock start(URI redisUrl) {
            return new CpuClock(redisUrl, jvmCpuNanos(), redisCpuSeconds(redisUrl));
        }

        Map<String, Object> spent() {
            Map<String, Object> spent = new LinkedHashMap<>();
            spent.put("jvmCpuSeconds", (jvmCpuNanos() - jvmNanos) / 1e9);
            spent.put("redisCpuSeconds", redisCpuSeconds(redisUrl) - redisSeconds);
            return spent;
        }

        private static long jvmCpuNanos() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        }

        private static double redisCpuSeconds(URI url) {
            try (Jedis redis = new Jedis(url.getHost(), url.getPort() == -1 ? 6379 : url.getPort())) {
                double seconds = 0;
                for (String line : redis.info("cpu").split("\r?\n")) {
                    if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1));
                }
                return seconds;
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** An interceptor whose hooks do nothing. */
    private static final class NoopInterceptor implements ConsumerInterceptor<String> {
        @Override
        public Message<String> beforeConsume(Consumer<String> consumer, Message<String> message) {
            return message;
        }

        @Override
        public void onAcknowledge(Consumer<String> consumer, MessageId messageId, Throwable exception) {}

        @Override
        public void onAcknowledgeCumulative(Consumer<String> consumer, MessageId messageId, Throwable exception) {}

        @Override
        public void onNegativeAcksSend(Consumer<String> consumer, Set<MessageId> messageIds) {}

        @Override
        public void onAckTimeoutSend(Consumer<String> consumer, Set<MessageId> messageIds) {}

        @Override
        public void close() {}
    }

    /** Delegates to the interceptor and times each message's beforeConsume plus onAcknowledge. */
    private static final class TimedInterceptor implements ConsumerInterceptor<String> {
        private final ConsumerInterceptor<String> inner;
        private final long[] nanos;
        private int entered;
        private int acked;

        TimedInterceptor(ConsumerInterceptor<String> inner, int count) {
            this.inner = inner;
            this.nanos = new long[count];
        }

        Map<String, Double> summary() {
            return summarize(Arrays.copyOf(nanos, Math.min(entered, acked)));
        }

        @Override
        public Message<String> beforeConsume(Consumer<String> consumer, Message<String> message) {
            long start = System.nanoTime();
            Message<String> result = inner.beforeConsume(consumer, message);
            if (entered < nanos.length) nanos[entered++] += System.nanoTime() - start;
            return result;
        }

        @Override
        public void onAcknowledge(Consumer<String> consumer, MessageId messageId, Throwable exception) {
            long start = System.nanoTime();
            inner.onAcknowledge(consumer, messageId, exception);
            if (acked < nanos.length) nanos[acked++] += System.nanoTime() - start;
        }

        @Override
        public void onAcknowledgeCumulative(Consumer<String> consumer, MessageId messageId, Throwable exception) {
            inner.onAcknowledgeCumulative(consumer, messageId, exception);
        }

        @Override
        public void onNegativeAcksSend(Consumer<String> consumer, Set<MessageId> messageIds) {
            inner.onNegativeAcksSend(consumer, messageIds);
        }

        @Override
        public void onAckTimeoutSend(Consumer<String> consumer, Set<MessageId> messageIds) {
            inner.onAckTimeoutSend(consumer, messageIds);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
