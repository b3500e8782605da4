import "server-only";

import { z } from "zod";

// The named schemas of the API document (components.schemas): what clients send, read as zod's
// input side, and what Baton answers, read as its output side. A schema registered here
// appears once under its id and is referred to by `$ref` wherever it is nested.

export type ComponentMeta = { id: string; description?: string };

export const requestComponents = z.registry<ComponentMeta>();
export const responseComponents = z.registry<ComponentMeta>();
