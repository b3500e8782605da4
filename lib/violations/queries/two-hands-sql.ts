import "server-only";

import { sql } from "@/lib/db/sql";

// What saw a double run in a lock's own records ("quartz"), on an event Baton's poller wrote
// (lib/poller/concurrent-hold-events.ts); null on every other event. Read from the poller's rows
// only: a client's attributes are free-form, and a `twoHands` key of theirs decides nothing.
// Unqualified columns of exclusivity_event: the statements that use it join no other table with them.
export const twoHandsSql = sql`case when source = 'POLLER' then attributes ->> 'twoHands' end`;
