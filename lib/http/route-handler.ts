import "server-only";

import { ApiError, type ApiErrorBody } from "@/lib/http/api-error";

type Handler<Ctx> = (request: Request, context: Ctx) => Promise<Response>;

function errorResponse(error: ApiError): Response {
  const body: ApiErrorBody = { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } };
  return Response.json(body, { status: error.status, headers: error.headers });
}

/**
 * Wraps a route handler so that every failure answers in the one error shape: ApiErrors with
 * their status, anything else as a 500 that names no internals (the details go to the log).
 */
export function withErrorHandling<Ctx>(handler: Handler<Ctx>): Handler<Ctx> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      console.error(`[baton] ${request.method} ${new URL(request.url).pathname} failed:`, error);
      return errorResponse(new ApiError(500, "internal", "Baton could not answer this request; see the server log."));
    }
  };
}
