import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";

import { AlertsView } from "@/app/(dashboard)/alerts/alerts-view";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { alertsQuery } from "@/lib/alerts/alert-queries";
import { alertsParamsSchema } from "@/lib/alerts/alerts-params";
import { listAlerts } from "@/lib/alerts/list-alerts";
import { getDb } from "@/lib/db/client";
import { runQuery } from "@/lib/db/query-result";

export const dynamic = "force-dynamic";
export const metadata = { title: "Alerts" };

export default async function AlertsPage() {
  const result = await runQuery(() => listAlerts(getDb(), alertsParamsSchema.parse({})));
  const heading = (
    <>
      <h1>Alerts</h1>
      <p className="page-lead">
        What the alert rules found: firing and pending alerts, then the recently resolved, each with its state history and the page that explains it.
      </p>
    </>
  );
  if (!result.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Alerts" reason={result.reason} />
      </>
    );
  }
  const queryClient = new QueryClient();
  queryClient.setQueryData(alertsQuery().queryKey, result.data);
  return (
    <>
      {heading}
      <HydrationBoundary state={dehydrate(queryClient)}>
        <AlertsView />
      </HydrationBoundary>
    </>
  );
}
