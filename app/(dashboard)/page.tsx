import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { ConfigureClusterHelp } from "@/components/ui/configure-cluster-help";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { listClusters } from "@/lib/queries/list-clusters";
import { runQuery } from "@/lib/queries/query-result";

export const dynamic = "force-dynamic";
export const metadata = { title: "Leaders" };

export default async function LeadersPage() {
  const config = getConfig();
  const heading = (
    <>
      <h1>Leaders</h1>
      <p className="page-lead">Who is the active consumer of every exclusive subscription, right now.</p>
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
  const clusters = await runQuery(() => listClusters(getDb(), config));
  if (!clusters.isAvailable) {
    return (
      <>
        {heading}
        <UnavailableNotice what="Leaders" reason={clusters.reason} />
      </>
    );
  }
  return (
    <>
      {heading}
      {clusters.data.map((cluster) =>
        cluster.resourceCount === 0 ? (
          <EmptyState key={cluster.name} title={`${cluster.name}: no subscription observed yet`}>
            <p>
              Baton polls <code>{cluster.adminUrl}</code> every {cluster.pollIntervalMs / 1000} s. Subscriptions in scope appear here after
              the worker&apos;s first successful poll.
            </p>
          </EmptyState>
        ) : (
          <section key={cluster.name} className="panel" aria-label={cluster.name}>
            <h2>{cluster.name}</h2>
            <p className="muted">{cluster.resourceCount} subscription partitions observed.</p>
          </section>
        ),
      )}
    </>
  );
}
