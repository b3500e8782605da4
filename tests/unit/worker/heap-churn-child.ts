// Run by limit-heap-growth.test.ts in a process of its own: keeps a live set, churns objects that
// live long enough to reach the old generation (as a poll cycle's stats and rows do), and prints
// the largest heap V8 reserved. `limit` as the first argument applies limitHeapGrowth first.
import { limitHeapGrowth } from "@/lib/worker/limit-heap-growth";

if (process.argv[2] === "limit") limitHeapGrowth();
const live = Array.from({ length: 500_000 }, (_, i) => ({ name: `x${i}`, pair: [i, i + 1], nested: { i } }));
const ring: unknown[] = new Array(150_000);
let peak = 0;
for (let n = 0; n < 3_000_000; n++) {
  ring[n % ring.length] = { name: `y${n % 2000}`, values: [n, n, n, n] };
  if (n % 2000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ peakHeapMb: peak / 1024 / 1024, live: live.length }));
