import { startSignIn } from "@/lib/auth/sign-in-routes";
import { getConfig } from "@/lib/config";

export const dynamic = "force-dynamic";

/** GET /auth/sign-in?returnTo=/path: redirects to the OpenID provider. */
export async function GET(request: Request): Promise<Response> {
  return startSignIn(request, getConfig().access);
}
