// The broker release lines whose owner rules Baton implements. The rules were read from the
// released sources of 4.2.4 and 3.0.7 (docs/owner-rules.md); other lines are not assumed to match.
// Client-safe.

export const BROKER_LINES = ["4.2", "3.0"] as const;
export type BrokerLine = (typeof BROKER_LINES)[number];

/** The line of a broker version such as "4.2.4" or "3.0.7-SNAPSHOT", or null when Baton has no rules for it. */
export function brokerLineOf(version: string): BrokerLine | null {
  const match = /^(\d+)\.(\d+)(?:[.-]|$)/.exec(version.trim());
  if (!match) return null;
  const line = `${match[1]}.${match[2]}`;
  return (BROKER_LINES as readonly string[]).includes(line) ? (line as BrokerLine) : null;
}
