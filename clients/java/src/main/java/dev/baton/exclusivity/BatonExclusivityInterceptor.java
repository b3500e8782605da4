package dev.baton.exclusivity;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.ConsumerInterceptor;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.TopicMessageId;

/**
 * Counts exclusivity for a Pulsar consumer with one line:
 * {@code .intercept(new BatonExclusivityInterceptor<>(settings))}. A message enters its key when
 * the application receives it (beforeConsume) and leaves it when it is acknowledged (one by one
 * or cumulatively), negatively acknowledged, or timed out. The key is the ordering key when set,
 * else the message key, else what the key extractor answers; a message without any is not counted.
 *
 * <p>Service defaults to the subscription (all consumers of a subscription count together) and
 * worker to the consumer's name. Nothing here blocks on, or fails because of, Redis or Baton.
 */
public final class BatonExclusivityInterceptor<T> implements ConsumerInterceptor<T> {
    private static final Pattern PARTITION_SUFFIX = Pattern.compile("^(.*)-partition-(\\d+)$");

    private final BatonSettings settings;
    private final Function<Message<T>, String> keyExtractor;
    private final Map<Object, Entry> inside = new ConcurrentHashMap<>();
    /** Per key, this consumer's latest entry into it. */
    private final Map<String, ExclusivityCounter.Inside> latestByKey = new ConcurrentHashMap<>();
    private volatile ExclusivityCounter counter;
    /** Per topic name (a partition's, for a partitioned topic), its event context. */
    private final Map<String, EventContext> contexts = new ConcurrentHashMap<>();

    private record Entry(String key, String topic, MessageId id, ExclusivityCounter.Inside inside) {}

    public BatonExclusivityInterceptor(BatonSettings settings) {
        this(settings, message -> null);
    }

    /** keyExtractor names the key of messages that carry neither an ordering key nor a key (null: not counted). */
    public BatonExclusivityInterceptor(BatonSettings settings, Function<Message<T>, String> keyExtractor) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.keyExtractor = Objects.requireNonNull(keyExtractor, "keyExtractor");
        // With both names given, Redis is connected before the first message arrives.
        if (settings.service() != null && settings.worker() != null) this.counter = ExclusivityCounter.start(settings);
    }

    /** The counter behind this interceptor (null until the first message): its stats say what was counted, sent and lost. */
    public ExclusivityCounter counter() {
        return counter;
    }

    @Override
    public Message<T> beforeConsume(Consumer<T> consumer, Message<T> message) {
        String key = keyOf(message);
        if (key == null || key.isEmpty()) return message;
        ExclusivityCounter current = counterFor(consumer);
        // Outside the sample, nothing is entered: its acknowledgement finds nothing to leave.
        if (!current.isSampled(key)) return message;
        String topicName = message.getTopicName();
        EventContext context = topicName == null ? new EventContext(null, consumer.getSubscription(), null, null) : contextOf(topicName, consumer);
        // A consumer that receives the next message of a key has finished the one before, even
        // when it acknowledges later (cumulatively, or in batches): leave the earlier entry first,
        // or this consumer would count itself as the other worker inside.
        ExclusivityCounter.Inside earlier = latestByKey.get(key);
        if (earlier != null) earlier.close();
        ExclusivityCounter.Inside entered = current.enter(key, context);
        latestByKey.put(key, entered);
        Entry previous = inside.put(idKey(message.getMessageId()), new Entry(key, topicName, message.getMessageId(), entered));
        // The same message again before it was acknowledged (a redelivery): its earlier entry is over.
        if (previous != null) previous.inside().close();
        return message;
    }

    @Override
    public void onAcknowledge(Consumer<T> consumer, MessageId messageId, Throwable exception) {
        leave(messageId);
    }

    @Override
    public void onAcknowledgeCumulative(Consumer<T> consumer, MessageId messageId, Throwable exception) {
        String ackTopic = messageId instanceof TopicMessageId topicId ? topicId.getOwnerTopic() : null;
        inside.entrySet().removeIf(mapEntry -> {
            Entry entry = mapEntry.getValue();
            if (ackTopic != null && !ackTopic.equals(entry.topic())) return false;
            if (!isAtOrBefore(entry.id(), messageId)) return false;
            close(entry);
            return true;
        });
    }

    @Override
    public void onNegativeAcksSend(Consumer<T> consumer, Set<MessageId> messageIds) {
        messageIds.forEach(this::leave);
    }

    @Override
    public void onAckTimeoutSend(Consumer<T> consumer, Set<MessageId> messageIds) {
        messageIds.forEach(this::leave);
    }

    /**
     * Leaves what the consumer still held and sends what is buffered (bounded in time). Pulsar's
     * client does not call this when the consumer closes: call it after {@code consumer.close()}
     * (a JVM shutdown hook does it otherwise).
     */
    @Override
    public void close() {
        inside.values().forEach(entry -> entry.inside().close());
        inside.clear();
        latestByKey.clear();
        ExclusivityCounter current = counter;
        if (current != null) current.close();
    }

    private void leave(MessageId messageId) {
        Entry entry = inside.remove(idKey(messageId));
        if (entry != null) close(entry);
    }

    private void close(Entry entry) {
        entry.inside().close();
        latestByKey.remove(entry.key(), entry.inside());
    }

    /**
     * A partition's context, read from its topic name once: the regex is not matched again for
     * every message. An interceptor shared by consumers of other subscriptions gets its own context.
     */
    private EventContext contextOf(String topicName, Consumer<T> consumer) {
        String subscription = consumer.getSubscription();
        EventContext cached = contexts.get(topicName);
        if (cached != null && Objects.equals(cached.subscription(), subscription)) return cached;
        Matcher matcher = PARTITION_SUFFIX.matcher(topicName);
        boolean isPartition = matcher.matches();
        EventContext context = new EventContext(isPartition ? matcher.group(1) : topicName, subscription, isPartition ? Integer.valueOf(matcher.group(2)) : null, null);
        contexts.put(topicName, context);
        return context;
    }

    private String keyOf(Message<T> message) {
        if (message.hasOrderingKey()) return new String(message.getOrderingKey(), StandardCharsets.UTF_8);
        if (message.hasKey()) return message.getKey();
        return keyExtractor.apply(message);
    }

    /** Started on the first message: the defaults (subscription, consumer name) come from the consumer. */
    private ExclusivityCounter counterFor(Consumer<T> consumer) {
        ExclusivityCounter current = counter;
        if (current != null) return current;
        synchronized (this) {
            if (counter == null) counter = ExclusivityCounter.start(settings.withNames(consumer.getSubscription(), consumer.getConsumerName()));
            return counter;
        }
    }

    /**
     * The same message's id as beforeConsume and the acknowledgement see it: a multi-topic consumer
     * may wrap the id it acknowledges, so ids are compared by position, not by class.
     */
    private static Object idKey(MessageId id) {
        if (id instanceof MessageIdAdv adv) return new Position(adv.getLedgerId(), adv.getEntryId(), adv.getPartitionIndex(), adv.getBatchIndex());
        return id;
    }

    private record Position(long ledgerId, long entryId, int partition, int batchIndex) {}

    private static boolean isAtOrBefore(MessageId id, MessageId upTo) {
        try {
            return id.compareTo(upTo) <= 0;
        } catch (IllegalArgumentException | ClassCastException notComparable) {
            return false;
        }
    }
}
