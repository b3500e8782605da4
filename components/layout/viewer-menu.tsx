import styles from "@/components/layout/access.module.css";

/** Who is signed in, and (for a Baton session) the way out. */
export function ViewerMenu({ viewer, canSignOut }: { viewer: string; canSignOut: boolean }) {
  return (
    <div className={styles.viewer}>
      <span>
        Signed in as <strong>{viewer}</strong>
      </span>
      {canSignOut ? (
        <form method="post" action="/auth/sign-out">
          <button type="submit">Sign out</button>
        </form>
      ) : null}
    </div>
  );
}
