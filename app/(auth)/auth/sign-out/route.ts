import { signOut } from "@/lib/auth/sign-in-routes";
import { getConfig } from "@/lib/config";

export const dynamic = "force-dynamic";

/** POST /auth/sign-out: clears the session cookie and redirects to the sign-in page. */
export async function POST(request: Request): Promise<Response> {
  return signOut(request, getConfig().access);
}
