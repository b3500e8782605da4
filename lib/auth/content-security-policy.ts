// The Content-Security-Policy of Baton's pages. Pure and client-safe.
//
// Scripts: only Baton's own, plus the inline ones Next writes (the RSC payload), which carry the
// per-request nonce (Next reads it from this header on the request). Styles allow inline
// `style` attributes: the charts position their elements with them. No frames of Baton
// anywhere (clickjacking), no plugins, forms only to Baton itself.
export function pageContentSecurityPolicy(nonce: string, isDevelopment: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDevelopment ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The API's answers (JSON, never rendered): nothing may load, nothing may frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";
