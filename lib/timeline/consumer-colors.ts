// Consumer colours: stable by name (the same consumer has the same colour on every page and
// every refresh), distinct within one legend while the palette lasts. Pure and client-safe.

/** Twelve hues that read on the dark theme and stay apart from the status colours' meaning. */
export const CONSUMER_PALETTE = [
  "#5aa9ff",
  "#f2a93b",
  "#a371f7",
  "#3fc1b0",
  "#ff7eb6",
  "#c9d46b",
  "#7ee0ff",
  "#ff9f7a",
  "#8f9cff",
  "#6fd36f",
  "#e3b6ff",
  "#d6a46b",
] as const;

/** Colours of what is not a consumer: nobody holds it, Baton did not see it, Key_Shared. */
export const NO_HOLDER_COLOR = "#f85149";
export const UNOBSERVED_COLOR = "#4b5563";
export const SHARED_COLOR = "#64748b";

/** FNV-1a: a small, stable string hash. */
export function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The colour of one consumer on its own. */
export function colorForConsumer(name: string): string {
  return CONSUMER_PALETTE[hashName(name) % CONSUMER_PALETTE.length]!;
}

/**
 * Colours for the consumers of one chart: each takes its own colour unless a consumer earlier
 * in name order took it, then the next free one; once the palette is used up, colours repeat.
 * The same set of names always gets the same colours.
 */
export function assignConsumerColors(names: readonly string[]): Record<string, string> {
  const unique = [...new Set(names)].sort();
  const taken = new Set<number>();
  const colors: Record<string, string> = {};
  for (const name of unique) {
    let slot = hashName(name) % CONSUMER_PALETTE.length;
    if (taken.size < CONSUMER_PALETTE.length) {
      while (taken.has(slot)) slot = (slot + 1) % CONSUMER_PALETTE.length;
      taken.add(slot);
    }
    colors[name] = CONSUMER_PALETTE[slot]!;
  }
  return colors;
}
