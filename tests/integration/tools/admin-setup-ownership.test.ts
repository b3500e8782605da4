import { afterEach, describe, expect, it } from "vitest";

import { createNonPartitionedTopic } from "@/tools/pulsar/admin-setup";
import { startHttpServer, type TestServer } from "@/tests/support/http-server";

// A namespace created a moment ago may have no bundle owner yet: the broker answers 412 "Failed
// to find ownership" to a topic's creation (seen on Pulsar 3.0.7). The setup helpers ask again
// then, and only then. The broker's answers are replayed by a local HTTP server.

const UNOWNED = JSON.stringify({ reason: "Failed to find ownership for topic:persistent://t/ns/clicks" });

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(answers: { status: number; body: string }[]): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  server = await startHttpServer((_request, response) => {
    const answer = answers[Math.min(count, answers.length - 1)]!;
    count += 1;
    response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  return { url: server.url, requests: () => count };
}

describe("createNonPartitionedTopic", () => {
  it("asks again while the new namespace's bundle has no owner, and succeeds when it has one", async () => {
    const broker = await serve([
      { status: 412, body: UNOWNED },
      { status: 412, body: UNOWNED },
      { status: 204, body: "" },
    ]);
    await createNonPartitionedTopic(broker.url, "persistent://t/ns/clicks");
    expect(broker.requests()).toBe(3);
  });

  it("does not ask again after any other refusal", async () => {
    const broker = await serve([{ status: 409, body: JSON.stringify({ reason: "This topic already exists" }) }]);
    await expect(createNonPartitionedTopic(broker.url, "persistent://t/ns/clicks")).rejects.toThrow(/HTTP 409/);
    expect(broker.requests()).toBe(1);
  });
});
