import type { Metadata } from "next";
import Link from "next/link";

import styles from "@/components/layout/access.module.css";
import { safeReturnPath } from "@/lib/auth/access-rules";
import { readViewer } from "@/lib/auth/read-viewer";
import { getConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  sign_in_expired: "The sign-in took too long or was started elsewhere; please sign in again.",
  sign_in_failed: "The sign-in could not be completed; please try again.",
  not_allowed: "Your account is not allowed to use Baton: its e-mail domain or groups are not on the allow-list.",
  provider_unavailable: "The sign-in provider cannot be reached right now; please try again shortly.",
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** /sign-in: where pages send signed-out visitors. */
export default async function SignInPage({ searchParams }: Props) {
  const params = await searchParams;
  const returnTo = safeReturnPath(typeof params.returnTo === "string" ? params.returnTo : null);
  const error = typeof params.error === "string" ? ERRORS[params.error] : undefined;
  const mode = getConfig().access.method.mode;
  const viewer = await readViewer();
  return (
    <section className={`panel ${styles.signIn}`} aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Baton</h1>
      {params.signedOut === "1" ? <p role="status">You are signed out.</p> : null}
      {error ? (
        <p className={styles.error} role="alert">
          {error}
        </p>
      ) : null}
      {viewer !== null ? (
        <p>
          You are signed in as <strong>{viewer}</strong>. <Link href={returnTo}>Continue to Baton</Link>
        </p>
      ) : mode === "oidc" ? (
        <>
          <p className="page-lead">Baton shows who holds your subscriptions and locks; sign in with your organisation&rsquo;s account to see it.</p>
          <a className={styles.signInButton} href={`/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`}>
            Sign in with single sign-on
          </a>
        </>
      ) : mode === "proxy" ? (
        <p>Baton is served behind a sign-in proxy, and this request did not come through it with a user. Open Baton through its usual address.</p>
      ) : (
        <p>
          No access control is configured, so there is nothing to sign in to. <Link href={returnTo}>Continue to Baton</Link>
        </p>
      )}
    </section>
  );
}
