import "server-only";

import { headers } from "next/headers";

import { VIEWER_HEADER } from "@/lib/auth/viewer-header";

/** The signed-in viewer's e-mail or name as proxy.ts found it, or null (open mode, signed out). */
export async function readViewer(): Promise<string | null> {
  const value = (await headers()).get(VIEWER_HEADER);
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
