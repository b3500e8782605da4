import Link from "next/link";

import { EmptyState } from "@/components/ui/empty-state";

export const metadata = { title: "Not found" };

/** What a page answers, with a 404, for an address or a consumer, lock or subscription Baton does not know. */
export default function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <EmptyState title="Baton knows nothing by this name">
        <p>
          No page, or no consumer, lock or subscription Baton has observed, answers to this address. Start from the <Link href="/">Leaders board</Link> or the{" "}
          <Link href="/locks">Locks</Link> list.
        </p>
      </EmptyState>
    </>
  );
}
