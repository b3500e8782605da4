import { z } from "zod";

// Field schemas that several parts of the configuration share.

export const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^\s/]+/i.test(value) && URL.canParse(value), { message: "must be an http:// or https:// URL" })
  .transform((value) => value.replace(/\/+$/, ""));

/** Cluster names: they appear in URLs and in the `lock` field of counter events. */
export const clusterName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/i, { message: "must be 1-63 letters, digits, '.', '_' or '-'" });
