import type { ApiErrorBody } from "@/lib/http/api-error";

/** Query parameters; empty, null and undefined values are left out. */
export type ApiParams = Record<string, string | number | boolean | null | undefined>;

/** Fetches JSON from Baton's API; a failure says what the API said (its error message), not just the status. */
export async function fetchApi<T>(path: string, params: ApiParams): Promise<T> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  const query = search.toString();
  const response = await fetch(query ? `${path}?${query}` : path, { headers: { accept: "application/json" } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as ApiErrorBody | null;
    throw new Error(body?.error?.message ?? `${path} answered HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}
