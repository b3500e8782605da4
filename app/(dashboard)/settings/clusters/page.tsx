import { EmptyState } from "@/components/ui/empty-state";
import { ConfigureClusterHelp } from "@/components/ui/configure-cluster-help";
import { StatusPill } from "@/components/ui/status-pill";
import { PollerSummary } from "@/components/ui/poller-summary";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { checkHealth } from "@/lib/health/check-health";
import { describeCluster } from "@/lib/clusters/describe-cluster";

export const dynamic = "force-dynamic";
export const metadata = { title: "Clusters" };

export default async function ClustersPage() {
  const config = getConfig();
  const health = await checkHealth(config, getDb());
  return (
    <>
      <h1>Clusters</h1>
      <p className="page-lead">What Baton watches, and whether it can reach it.</p>
      <section className="panel" aria-label="Database">
        <h2>Database</h2>
        <dl className="facts">
          <dt>Status</dt>
          <dd data-testid="database-status">
            <StatusPill status={health.database.status} />
          </dd>
          <dt>Kind</dt>
          <dd>{health.database.isEmbedded ? "embedded PostgreSQL (no DATABASE_URL set)" : "DATABASE_URL"}</dd>
          {health.database.reason ? (
            <>
              <dt>Reason</dt>
              <dd>{health.database.reason}</dd>
            </>
          ) : null}
        </dl>
      </section>
      {config.clusters.length === 0 ? (
        <EmptyState title="No cluster configured">
          <ConfigureClusterHelp />
        </EmptyState>
      ) : (
        <section className="panel" aria-label="Clusters">
          <h2>Clusters</h2>
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Address</th>
                <th scope="col">Status</th>
                <th scope="col">Scope</th>
                <th scope="col">Poll interval</th>
                <th scope="col">Budget</th>
                <th scope="col">Auth</th>
                <th scope="col">Poller</th>
              </tr>
            </thead>
            <tbody>
              {config.clusters.map((cluster) => {
                const clusterHealth = health.clusters.find((c) => c.name === cluster.name);
                const facts = describeCluster(cluster);
                return (
                  <tr key={cluster.name}>
                    <th scope="row">{cluster.name}</th>
                    <td>{facts.kindLabel}</td>
                    <td className="mono">{facts.endpoint}</td>
                    <td>
                      {clusterHealth ? <StatusPill status={clusterHealth.status} /> : null}
                      {clusterHealth?.reason ? <div className="muted">{clusterHealth.reason}</div> : null}
                    </td>
                    <td>{facts.scope}</td>
                    <td>{cluster.pollIntervalMs / 1000} s</td>
                    <td>{facts.budget}</td>
                    <td>{facts.auth}</td>
                    <td>
                      <PollerSummary poller={clusterHealth?.poller ?? null} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
