import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { getDb } from "@/lib/db/client";
import { listRecentDeployments } from "@/lib/queries/list-recent-deployments";
import { runQuery } from "@/lib/queries/query-result";

export const dynamic = "force-dynamic";
export const metadata = { title: "Deployments" };

export default async function DeploymentsPage() {
  const deployments = await runQuery(() => listRecentDeployments(getDb(), 100));
  return (
    <>
      <h1>Deployments</h1>
      <p className="page-lead">Rollouts: the context that tells real violations from deployment noise.</p>
      {!deployments.isAvailable ? (
        <UnavailableNotice what="Deployments" reason={deployments.reason} />
      ) : deployments.data.length === 0 ? (
        <EmptyState title="No deployments recorded yet">
          <p>
            Post each rollout to <code>POST /api/v1/deployments</code> from your CI/CD pipeline (service, version, environment, start and
            finish), the way you would send a Grafana annotation or a Datadog deployment event.
          </p>
        </EmptyState>
      ) : (
        <section className="panel">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Version</th>
                <th scope="col">Environment</th>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {deployments.data.map((d) => (
                <tr key={d.id}>
                  <td>{d.service}</td>
                  <td className="mono">{d.version}</td>
                  <td>{d.environment}</td>
                  <td>{d.startedAt}</td>
                  <td>{d.finishedAt ?? "in progress"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
