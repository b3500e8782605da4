import styles from "@/components/layout/access.module.css";

/** Shown on every page while no access control is configured (open mode). */
export function OpenAccessNotice() {
  return (
    <p className={styles.notice} role="status" aria-label="Access control">
      <strong>Open to anyone who can reach this port:</strong> no access control is configured. Set <code>BATON_OIDC_ISSUER</code> (sign-in) or{" "}
      <code>BATON_AUTH_PROXY_HEADER</code> (behind a sign-in proxy); see &ldquo;Access control&rdquo; in the README.
    </p>
  );
}
