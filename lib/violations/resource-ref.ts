// Which subscription partition a counter event names, in the form Baton stores held resources
// in (held_resource: the topic's base name fully qualified, the partition, -1 when the topic is
// not partitioned). Events may name a partition's own topic (…-partition-3), the base name, or
// a short name as Pulsar clients accept it. Client-safe and pure.

import { formatTopicName, parseTopicName } from "@/lib/pulsar/topic-name";

export type ResourceRef = {
  /** Base topic name, persistent://tenant/namespace/local. */
  topic: string;
  subscription: string;
  /** -1: not partitioned; null: unknown (every partition of the topic matches). */
  partition: number | null;
};

/** Pulsar's short forms: "local" is persistent://public/default/local, "t/ns/local" is persistent://t/ns/local. */
function qualify(topic: string): string {
  if (topic.includes("://")) return topic;
  const parts = topic.split("/");
  if (parts.length === 1) return `persistent://public/default/${topic}`;
  if (parts.length === 3) return `persistent://${topic}`;
  return topic;
}

/** The base topic and the partition its name carries (null when the name carries none). */
export function normaliseTopic(topic: string): { topic: string; partition: number | null } | null {
  const parsed = parseTopicName(qualify(topic.trim()));
  if (!parsed) return null;
  return { topic: formatTopicName(parsed.topic), partition: parsed.partition === -1 ? null : parsed.partition };
}

/**
 * The resource an event names, or null without a topic or subscription. A partition in the
 * topic's name wins over the event's partition field (the name is what the consumer read).
 */
export function resourceRefOf(event: { topic: string | null; subscription: string | null; partition: number | null }): ResourceRef | null {
  if (!event.topic || !event.subscription) return null;
  const normalised = normaliseTopic(event.topic);
  if (!normalised) return null;
  return { topic: normalised.topic, subscription: event.subscription, partition: normalised.partition ?? event.partition };
}

/** Whether a held resource (partition -1 when not partitioned) is the one an event names. */
export function refMatches(ref: ResourceRef, resource: { topic: string; subscription: string; partition: number }): boolean {
  return ref.topic === resource.topic && ref.subscription === resource.subscription && (ref.partition === null || ref.partition === resource.partition);
}

export function refKey(ref: ResourceRef): string {
  return `${ref.topic}|${ref.subscription}|${ref.partition ?? "*"}`;
}
