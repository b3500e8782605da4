import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { cookies } from "next/headers";
import Link from "next/link";

import { DrilldownView } from "@/app/(dashboard)/violations/drilldown/drilldown-view";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/http/api-error";
import { runQuery } from "@/lib/db/query-result";
import { fitRangeToData, isLiveRange, resolveRange } from "@/lib/timeline/time-range";
import { drilldownQuery } from "@/lib/violations/client/violation-queries";
import { drilldownSettings } from "@/lib/violations/queries/drilldown-settings";
import { getOldestEventMs } from "@/lib/violations/queries/get-oldest-data";
import { getEventDrilldown, getKeyDrilldown } from "@/lib/violations/queries/get-key-drilldown";
import { eventParamsSchema } from "@/lib/violations/queries/read-params";
import { TIME_ZONE_COOKIE, timeZoneFromCookie } from "@/lib/violations/time-zone-cookie";
import { namesRange, readParam, readRange } from "@/lib/violations/view-params";

export const dynamic = "force-dynamic";
export const metadata = { title: "Violation drill-down" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function KeyForm() {
  return (
    <form action="/violations/drilldown" method="get" className="vio-key-form">
      <label>
        Key <input name="key" type="search" required placeholder="user-42" />
      </label>
      <input type="hidden" name="range" value="24h" />
      <button type="submit">Drill down</button>
    </form>
  );
}

export default async function DrilldownPage({ searchParams }: Props) {
  const params = await searchParams;
  const key = readParam(params, "key");
  const eventId = readParam(params, "event");
  const at = readParam(params, "at");
  const timeZone = timeZoneFromCookie((await cookies()).get(TIME_ZONE_COOKIE)?.value);
  const back = (
    <p className="vio-back">
      <Link href="/violations">← Violations</Link>
    </p>
  );
  if (key === null && eventId === null) {
    return (
      <>
        {back}
        <h1>Drill-down</h1>
        <EmptyState title="No key chosen">
          <p>
            Open a key from the Violations page&apos;s top list, or name one: every event of the key, the workers involved, and the leader changes and
            deployments around each violation.
          </p>
          <KeyForm />
        </EmptyState>
      </>
    );
  }

  // The event's time, when the link carries it, lets the lookup read one hour's partition.
  const eventLookup = eventId === null ? null : eventParamsSchema.safeParse({ id: eventId, ...(at === null ? {} : { at }) });
  if (eventLookup !== null && !eventLookup.success) {
    return (
      <>
        {back}
        <h1>{`Event ${eventId}`}</h1>
        <EmptyState title="This link is not valid">
          <p>{eventLookup.error.issues.map((issue) => `${issue.path.join(".") || "event"}: ${issue.message}`).join("; ")}</p>
          <KeyForm />
        </EmptyState>
      </>
    );
  }

  const nowMs = Date.now();
  const settings = { ...drilldownSettings(), nowMs };
  const db = getDb();
  // Without a range in the URL, the page opens on one that fits the events there are (an
  // unreadable database is reported by the read below, so here it only leaves the default).
  const selection = namesRange(params) ? readRange(params) : fitRangeToData(await getOldestEventMs(db).catch(() => null), nowMs);
  const range = resolveRange(selection, nowMs);
  const result = await runQuery(async () => {
    try {
      return eventLookup !== null
        ? await getEventDrilldown(db, { eventId: eventLookup.data.id, atMs: eventLookup.data.atMs }, settings)
        : await getKeyDrilldown(db, { key: key!, ...range }, settings);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return { notFound: error.message };
      throw error;
    }
  });

  const title = eventId !== null ? `Event ${eventId}` : `Key ${key}`;
  if (!result.isAvailable) {
    return (
      <>
        {back}
        <h1>{title}</h1>
        <UnavailableNotice what="The drill-down" reason={result.reason} />
      </>
    );
  }
  if ("notFound" in result.data) {
    return (
      <>
        {back}
        <h1>{title}</h1>
        <EmptyState title="No such event">
          <p>{result.data.notFound}</p>
          <KeyForm />
        </EmptyState>
      </>
    );
  }

  const drilldown = result.data;
  // Titled by what the on-call engineer knows: the key and the services that touched it.
  const services = [...new Set(drilldown.events.map((e) => e.service))].sort();
  const keyTitle = `Key ${drilldown.key}${services.length === 0 ? "" : ` · ${services.join(", ")}`}`;
  const queryClient = new QueryClient();
  const target =
    eventId !== null ? ({ kind: "event", eventId, at } as const) : ({ kind: "key", key: key!, range: { ...range, isLive: isLiveRange(selection) } } as const);
  queryClient.setQueryData(drilldownQuery(target).queryKey, drilldown);
  return (
    <>
      {back}
      <h1>{keyTitle}</h1>
      <p className="page-lead">
        {eventId !== null ? (
          <>
            One entry into key <strong className="mono">{drilldown.key}</strong> (event <span className="mono">{eventId}</span>), with the key&apos;s other
            entries around it.
          </>
        ) : (
          "Every entry into this key in the range, who was inside when another entered, and what coincides with each violation."
        )}
      </p>
      <HydrationBoundary state={dehydrate(queryClient)}>
        {eventId !== null ? (
          <DrilldownView mode="event" eventId={eventId} at={at} serverTimeZone={timeZone} serverNowMs={nowMs} />
        ) : (
          <DrilldownView mode="key" drilldownKey={key!} initialSelection={selection} initialRange={range} serverTimeZone={timeZone} serverNowMs={nowMs} />
        )}
      </HydrationBoundary>
    </>
  );
}
