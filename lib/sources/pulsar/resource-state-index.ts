// The states a poller keeps between cycles, indexed the way a cycle looks them up: by topic,
// then subscription, then partition. Kept from cycle to cycle (not rebuilt each time): a cycle
// of 100,000 resources cannot afford to hash 100,000 key strings again.

import type { ResourceState } from "@/lib/poller/contract/partition-state";

/** One topic's states: subscription -> states by partition + 1 (index 0: a non-partitioned topic). */
export type TopicStates = Map<string, (ResourceState | undefined)[]>;

export class ResourceStateIndex {
  readonly #byTopic = new Map<string, TopicStates>();
  #size = 0;

  static from(states: Iterable<ResourceState>): ResourceStateIndex {
    const index = new ResourceStateIndex();
    for (const state of states) index.set(state);
    return index;
  }

  get size(): number {
    return this.#size;
  }

  /** The states of one topic (its full base name), or undefined when none is known. */
  topic(fullName: string): TopicStates | undefined {
    return this.#byTopic.get(fullName);
  }

  /** Adds or replaces the state of its resource. */
  set(state: ResourceState): void {
    let topic = this.#byTopic.get(state.topic);
    if (!topic) this.#byTopic.set(state.topic, (topic = new Map()));
    let byPartition = topic.get(state.subscription);
    if (!byPartition) topic.set(state.subscription, (byPartition = []));
    if (byPartition[state.partition + 1] === undefined) this.#size++;
    byPartition[state.partition + 1] = state;
  }

  *values(): IterableIterator<ResourceState> {
    for (const topic of this.#byTopic.values()) yield* statesOf(topic);
  }
}

/** Every state of one topic. */
export function* statesOf(topic: TopicStates | undefined): IterableIterator<ResourceState> {
  if (!topic) return;
  for (const byPartition of topic.values()) {
    for (const state of byPartition) if (state !== undefined) yield state;
  }
}
