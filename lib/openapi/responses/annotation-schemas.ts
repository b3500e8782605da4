import "server-only";

import { z } from "zod";

import type { Annotation } from "@/lib/annotations/list-annotations";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { SameShape } from "@/lib/openapi/responses/same-shape";

// What GET /api/v1/annotations answers: Grafana's annotation fields, checked against the lib
// function's return type at compile time.

export const annotationSchema = z
  .object({
    id: z.string().meta({ description: '"change-<id>" or "deployment-<id>".' }),
    time: z.number().int().meta({ description: "Epoch ms: when the change was first seen, or when the deployment started." }),
    timeEnd: z
      .number()
      .int()
      .meta({ description: "Epoch ms: equal to `time` for a change; the deployment's finish (now while it runs, at most a day after its start)." }),
    title: z.string(),
    text: z.string(),
    tags: z.array(z.string()).meta({
      description:
        'Always "baton" and "holder-change" or "deployment", then the cluster, resource kind, change kind and ending, or the service and environment.',
    }),
  })
  .register(responseComponents, { id: "Annotation", description: "One Grafana annotation." });

export const annotationListSchema = z.array(annotationSchema).register(responseComponents, { id: "AnnotationList" });

true satisfies SameShape<z.output<typeof annotationSchema>, Annotation>;
