// The ingest route behind real HTTP, for tests/bench/ingest-throughput.ts: run as its own
// process (so that the load generator does not share its event loop) with DATABASE_URL and
// PORT set; prints "listening <url>" when ready and stops on SIGTERM.
import { POST } from "@/app/api/v1/exclusivity-events/route";
import { startRouteServer } from "@/tests/bench/route-server";

async function main(): Promise<void> {
  const server = await startRouteServer({ "POST /api/v1/exclusivity-events": POST }, Number(process.env.PORT ?? 0));
  console.log(`listening ${server.url}`);
  process.once("SIGTERM", () => {
    void server.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error("serve-ingest failed:", error);
  process.exit(1);
});
