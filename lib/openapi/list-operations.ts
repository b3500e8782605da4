import "server-only";

import type { OperationSpec } from "@/lib/openapi/operation-types";
import { alertOperations } from "@/lib/openapi/operations/alert-operations";
import { annotationOperations } from "@/lib/openapi/operations/annotation-operations";
import { ingestOperations } from "@/lib/openapi/operations/ingest-operations";
import { lockOperations } from "@/lib/openapi/operations/lock-operations";
import { readOperations } from "@/lib/openapi/operations/read-operations";
import { violationsOperations } from "@/lib/openapi/operations/violations-operations";

/** Every documented operation, its examples' times relative to `nowMs`. */
export function listOperations(nowMs: number): OperationSpec[] {
  return [
    ...readOperations(nowMs),
    ...lockOperations(nowMs),
    ...ingestOperations(nowMs),
    ...violationsOperations(nowMs),
    ...alertOperations(nowMs),
    ...annotationOperations(nowMs),
  ];
}
