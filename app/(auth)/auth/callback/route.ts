import type { NextRequest } from "next/server";

import { finishSignIn } from "@/lib/auth/sign-in-routes";
import { SIGN_IN_STATE_COOKIE } from "@/lib/auth/session-cookie";
import { getConfig } from "@/lib/config";

export const dynamic = "force-dynamic";

/** GET /auth/callback: the OpenID provider's redirect back; sets the session cookie. */
export async function GET(request: NextRequest): Promise<Response> {
  return finishSignIn(request, getConfig().access, request.cookies.get(SIGN_IN_STATE_COOKIE)?.value);
}
