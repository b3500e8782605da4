import { LeadersView } from "@/app/(dashboard)/leaders-view";
import { ConfigureClusterHelp } from "@/components/ui/configure-cluster-help";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { readBoardFilters } from "@/lib/board/board-filters";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { ALL_LEADERS, readLeaders } from "@/lib/subscriptions/list-leaders";
import { ALL_LOCKS, listLocks } from "@/lib/locks/list-locks";
import { runQuery } from "@/lib/db/query-result";

export const dynamic = "force-dynamic";
export const metadata = { title: "Leaders" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function LeadersPage({ searchParams }: Props) {
  const config = getConfig();
  const heading = (
    <>
      <h1>Leaders</h1>
      <p className="page-lead">Who holds every exclusive subscription and every lock, right now, and is it healthy.</p>
    </>
  );
  if (config.clusters.length === 0) {
    return (
      <>
        {heading}
        <EmptyState title="No Pulsar cluster configured">
          <ConfigureClusterHelp />
        </EmptyState>
      </>
    );
  }
  const filters = readBoardFilters(await searchParams);
  const clusterNames = config.clusters.map((c) => c.name);
  const board = await runQuery(async () => {
    const [leaders, locks] = await Promise.all([
      readLeaders(getDb(), { clusterNames, thresholds: config.board, query: { ...ALL_LEADERS, includeGone: filters.includeGone } }),
      listLocks(getDb(), { clusterNames, thresholds: config.board, query: { ...ALL_LOCKS, includeGone: filters.includeGone } }),
    ]);
    return { leaders, locks };
  });
  if (!board.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Leaders" reason={board.reason} />
      </>
    );
  }
  // The view refreshes the same query in the browser and starts from this answer. It goes as
  // JSON text: for 10,000 partitions, serializing one string costs the server a fraction of
  // serializing the object tree into the page.
  return (
    <>
      {heading}
      <LeadersView initialFilters={filters} initialBoardJson={JSON.stringify(board.data.leaders)} initialLocks={board.data.locks} />
    </>
  );
}
