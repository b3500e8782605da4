import { EmptyState } from "@/components/ui/empty-state";
import { ConfigureClusterHelp } from "@/components/ui/configure-cluster-help";
import { StatusPill } from "@/components/ui/status-pill";
import { PollerSummary } from "@/components/ui/poller-summary";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { checkHealth } from "@/lib/health/check-health";
import { describeCluster } from "@/lib/clusters/describe-cluster";
import { NO_PREDICTIONS, type PredictionScore } from "@/lib/board/board-types";
import { listPredictionScores } from "@/lib/clusters/list-prediction-scores";
import { ChangeSignalSummary } from "@/components/clusters/change-signal-summary";
import { WorkerReplicas } from "@/components/clusters/worker-replicas";
import { describeChangeSignal } from "@/lib/clusters/describe-change-signal";
import { readChangeSignals } from "@/lib/clusters/read-change-signals";
import { isPulsarCluster } from "@/lib/sources/pulsar/pulsar-config";

export const dynamic = "force-dynamic";
export const metadata = { title: "Clusters" };

function PredictionScoreText({ score }: { score: PredictionScore }) {
  if (score.predicted + score.notPredicted === 0) return <span className="muted">no holder change scored yet</span>;
  return (
    <>
      <div>
        {score.predicted} predicted: {score.confirmed} confirmed, {score.wrong > 0 ? <strong className="loud">{score.wrong} wrong</strong> : "0 wrong"}
      </div>
      <div className="muted small">{score.notPredicted} not predictable (no rule or no queue)</div>
      {score.wrong > 0 ? (
        <div className="muted small">
          A wrong prediction means the broker&apos;s or the lock&apos;s rule differs from Baton&apos;s (e.g. priority levels Baton does not know).
        </div>
      ) : null}
    </>
  );
}

export default async function ClustersPage() {
  const config = getConfig();
  const db = getDb();
  // The page reports an unreachable database itself (checkHealth): the scores then say so too, instead of failing the page.
  const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
  const [health, predictions, signals] = await Promise.all([
    checkHealth(config, db),
    listPredictionScores(
      db,
      config.clusters.map((c) => c.name),
    ).catch(asError),
    readChangeSignals(
      db,
      config.clusters.map((c) => c.name),
    ).catch(asError),
  ]);
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
          {/* Seven columns that wrap, so that the table fits 1280 px without hiding any. */}
          <table className="data clusters-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Address and scope</th>
                <th scope="col">Status</th>
                <th scope="col">Polling</th>
                <th scope="col">Poller</th>
                <th scope="col" title="Holder changes against the next holder Baton predicted just before each">
                  Next-in-line predictions
                </th>
                <th scope="col" title="Pulsar: each broker's consumer-level metrics, scraped to re-poll at once the topics whose consumers changed">
                  Change signal
                </th>
              </tr>
            </thead>
            <tbody>
              {config.clusters.map((cluster) => {
                const clusterHealth = health.clusters.find((c) => c.name === cluster.name);
                const facts = describeCluster(cluster);
                return (
                  <tr key={cluster.name}>
                    <th scope="row">
                      {cluster.name}
                      <div className="muted small">{facts.kindLabel}</div>
                    </th>
                    <td>
                      <div className="mono">{facts.endpoint}</div>
                      <div className="muted small">{facts.scope}</div>
                    </td>
                    <td>
                      {clusterHealth ? <StatusPill status={clusterHealth.status} /> : null}
                      {clusterHealth?.reason ? <div className="muted">{clusterHealth.reason}</div> : null}
                    </td>
                    <td>
                      <div>every {cluster.pollIntervalMs / 1000} s</div>
                      <div className="muted small">budget: {facts.budget}</div>
                      <div className="muted small">auth: {facts.auth}</div>
                      {facts.note ? <div className="muted small">{facts.note}</div> : null}
                    </td>
                    <td>
                      <PollerSummary poller={clusterHealth?.poller ?? null} unit={isPulsarCluster(cluster) ? "subscription partitions" : "locks"} />
                    </td>
                    <td data-testid="prediction-score">
                      {predictions instanceof Error ? (
                        <span className="muted">unavailable: {predictions.message}</span>
                      ) : (
                        <PredictionScoreText score={predictions.get(cluster.name) ?? NO_PREDICTIONS} />
                      )}
                    </td>
                    <td>
                      {!isPulsarCluster(cluster) ? (
                        <span className="muted">Pulsar only</span>
                      ) : signals instanceof Error ? (
                        <span className="muted">unavailable: {signals.message}</span>
                      ) : (
                        <ChangeSignalSummary
                          facts={describeChangeSignal({
                            status: signals.get(cluster.name) ?? null,
                            setting: cluster.consumerSignal,
                            intervalMs: cluster.consumerSignalIntervalMs,
                            requestsPerSecond: cluster.requestsPerSecond,
                            lastCycleMs: clusterHealth?.poller?.lastCycleMs ?? null,
                          })}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      {config.clusters.length > 0 ? <WorkerReplicas replicas={health.replicas} /> : null}
    </>
  );
}
