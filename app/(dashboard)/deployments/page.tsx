import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { cookies } from "next/headers";

import { DeploymentsView } from "@/app/(dashboard)/deployments/deployments-view";
import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { runQuery } from "@/lib/db/query-result";
import { fitRangeToData, isLiveRange, resolveRange } from "@/lib/timeline/time-range";
import { DEPLOYMENTS_PAGE_LIMIT, deploymentCoincidencesQuery } from "@/lib/violations/client/violation-queries";
import { getOldestDeploymentMs } from "@/lib/deployments/get-oldest-deployment";
import { listDeploymentCoincidences } from "@/lib/violations/queries/list-deployment-coincidences";
import { TIME_ZONE_COOKIE, timeZoneFromCookie } from "@/lib/violations/time-zone-cookie";
import { namesRange, readDeploymentsView } from "@/lib/violations/view-params";

export const dynamic = "force-dynamic";
export const metadata = { title: "Deployments" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function DeploymentsPage({ searchParams }: Props) {
  const params = await searchParams;
  const urlState = readDeploymentsView(params);
  const timeZone = timeZoneFromCookie((await cookies()).get(TIME_ZONE_COOKIE)?.value);
  const nowMs = Date.now();
  const filters = { service: urlState.service, environment: urlState.environment };
  const db = getDb();
  const result = await runQuery(async () => {
    const oldestMs = await getOldestDeploymentMs(db);
    if (oldestMs === null) return null;
    // Without a range in the URL, the page opens on one that fits the deployments there are.
    const state = namesRange(params) ? urlState : { ...urlState, range: fitRangeToData(oldestMs, nowMs) };
    const range = resolveRange(state.range, nowMs);
    const list = await listDeploymentCoincidences(db, {
      ...range,
      ...filters,
      limit: DEPLOYMENTS_PAGE_LIMIT,
      graceMs: getConfig().violations.deploymentGraceMs,
      nowMs,
    });
    return { state, range, list };
  });

  const heading = (
    <>
      <h1>Deployments</h1>
      <p className="page-lead">Rollouts, and the violations each coincided with: the violations whose cause is rollout.</p>
    </>
  );
  if (!result.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Deployments" reason={result.reason} />
      </>
    );
  }
  if (result.data === null) {
    return (
      <>
        {heading}
        <EmptyState title="No deployments recorded yet">
          <p>
            Post each rollout to <code>POST /api/v1/deployments</code> from your CI/CD pipeline (service, version, environment, start and finish), the way you
            would send a Grafana annotation or a Datadog deployment event.
          </p>
        </EmptyState>
      </>
    );
  }
  const { state, range, list } = result.data;
  const queryClient = new QueryClient();
  queryClient.setQueryData(deploymentCoincidencesQuery({ ...range, isLive: isLiveRange(state.range) }, filters).queryKey, list);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <DeploymentsView initialState={state} initialRange={range} serverTimeZone={timeZone} />
      </HydrationBoundary>
    </>
  );
}
