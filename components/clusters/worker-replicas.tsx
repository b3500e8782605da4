import { ExactTime } from "@/components/board/time-text";
import type { WorkerReplicaStatus } from "@/lib/health/health-report";

/** The fleet's worker replicas: which clusters each polls and since when, its last heartbeat. */
export function WorkerReplicas({ replicas }: { replicas: WorkerReplicaStatus[] }) {
  return (
    <section className="panel" aria-label="Workers">
      <h2>Workers</h2>
      {replicas.length === 0 ? (
        <p className="muted">No worker replica has polled these clusters: is `npm run worker` (or `npm start`) running against this database?</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Replica</th>
              <th scope="col">State</th>
              <th scope="col">Clusters it polls</th>
              <th scope="col">Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {replicas.map((replica) => (
              <tr key={replica.replicaId}>
                <th scope="row" className="mono">
                  {replica.replicaId}
                </th>
                <td>
                  {replica.isAlive ? "running" : replica.stoppedAt !== null ? "stopped (handed its clusters over)" : "gone (its clusters went to the others)"}
                </td>
                <td>
                  {replica.clusters.length === 0
                    ? "none"
                    : replica.clusters.map((cluster) => (
                        <div key={cluster.name}>
                          {cluster.name}{" "}
                          <span className="muted small">
                            since <ExactTime iso={cluster.since} />
                          </span>
                        </div>
                      ))}
                </td>
                <td>
                  <ExactTime iso={replica.heartbeatAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
