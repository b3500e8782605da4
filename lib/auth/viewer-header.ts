// The request header through which proxy.ts tells pages who is signed in (URI-encoded e-mail or
// name). proxy.ts deletes any value a client sends before setting its own.
export const VIEWER_HEADER = "x-baton-viewer";
