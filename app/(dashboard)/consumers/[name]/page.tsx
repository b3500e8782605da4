import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { notFound } from "next/navigation";

import { ConsumerView } from "@/app/(dashboard)/consumers/[name]/consumer-view";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { decodeConsumerName } from "@/lib/board/links";
import { consumerQuery } from "@/lib/consumers/consumer-queries";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { getConsumer } from "@/lib/consumers/get-consumer";
import { runQuery } from "@/lib/db/query-result";
import { RANGE_PRESETS } from "@/lib/timeline/time-range";

export const dynamic = "force-dynamic";
export const metadata = { title: "Consumer" };

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The consumer's history covers this long. */
const HISTORY_SPAN_MS = RANGE_PRESETS["7d"];

export default async function ConsumerPage({ params, searchParams }: Props) {
  const name = decodeConsumerName((await params).name);
  const clusterParam = (await searchParams).cluster;
  const config = getConfig();
  const clusterNames = config.clusters.map((c) => c.name);
  const cluster = typeof clusterParam === "string" && clusterNames.includes(clusterParam) ? clusterParam : null;
  const heading = (
    <>
      <h1>{name}</h1>
      <p className="page-lead">
        A consumer or lock holder: the partitions it holds or stands by for, the locks it holds or waits for, and the partition holds it gained and lost in the
        last 7 days.
      </p>
    </>
  );
  const nowMs = Date.now();
  const report = await runQuery(() => getConsumer(getDb(), { clusterNames, name, cluster, fromMs: nowMs - HISTORY_SPAN_MS, toMs: nowMs }));
  if (!report.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="This consumer" reason={report.reason} />
      </>
    );
  }
  // A name Baton has not seen (connected, holding or waiting now, or in a change of the last 7
  // days) is a 404, not an empty page answered 200.
  const { positions, locks, historyTotal } = report.data;
  if (positions.length === 0 && locks.length === 0 && historyTotal === 0) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(consumerQuery(name, { cluster, span: HISTORY_SPAN_MS }).queryKey, report.data);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <ConsumerView name={name} cluster={cluster} span={HISTORY_SPAN_MS} />
      </HydrationBoundary>
    </>
  );
}
