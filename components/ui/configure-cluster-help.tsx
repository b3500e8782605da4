/** How to point Baton at a cluster: shown wherever there is nothing to show without one. */
export function ConfigureClusterHelp() {
  return (
    <>
      <p>Baton reads leaders from a Pulsar admin API. Point it at one and restart:</p>
      <pre className="panel mono">BATON_PULSAR_ADMIN_URL=http://127.0.0.1:8080 npm start</pre>
      <p>
        Several clusters, tokens, TLS and the watched tenants, namespaces and topics go in <code>BATON_CLUSTERS</code> or a JSON file named by{" "}
        <code>BATON_CONFIG_FILE</code> (see the README&apos;s Configuration section). No broker at hand? <code>npm run pulsar</code> starts a local one.
      </p>
    </>
  );
}
