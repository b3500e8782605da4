/** A nullable database time as the ISO text the poller's states carry. */
export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
