import { z } from "zod";

import { accessEnvSchema } from "@/lib/auth/access-config";
import { envSchema } from "@/lib/config";
import { SOURCE_KINDS } from "@/lib/sources/registry";

import {
  ACCESS_ENVIRONMENT,
  type Description,
  type Descriptions,
  ENVIRONMENT,
  KIND_DATABASE,
  KIND_DYNAMODB,
  KIND_ETCD,
  KIND_PULSAR,
  KIND_REDIS,
  KIND_ZOOKEEPER,
  OTHER_ENVIRONMENT,
} from "./configuration-descriptions";

// docs/configuration.md, rendered from the zod schemas Baton parses its settings with: every
// setting a schema has must have a description, and every description must name a setting a
// schema has, so the reference cannot drift from lib/config.ts and the kinds' config schemas.

type JsonSchemaNode = {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
};

const KIND_DESCRIPTIONS: Record<string, Descriptions> = {
  pulsar: KIND_PULSAR,
  redis: KIND_REDIS,
  zookeeper: KIND_ZOOKEEPER,
  etcd: KIND_ETCD,
  dynamodb: KIND_DYNAMODB,
  database: KIND_DATABASE,
};

/** Defaults that depend on the machine that renders them (an absolute path), stated as the docs say them. */
const MACHINE_DEPENDENT_DEFAULTS: Record<string, string> = { BATON_DATA_DIR: "`./.baton`" };

function toJsonSchema(schema: z.ZodType): JsonSchemaNode {
  // The parsed JSON Schema document is plain data; the fields read here are the standard ones.
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
}

/** The schema node at `patterns[].match`-style paths. */
function nodeAt(root: JsonSchemaNode, path: string): { node: JsonSchemaNode; isRequired: boolean } | undefined {
  let node: JsonSchemaNode | undefined = root;
  let isRequired = false;
  for (const segment of path.split(".")) {
    const isList = segment.endsWith("[]");
    const name = isList ? segment.slice(0, -2) : segment;
    const parent: JsonSchemaNode | undefined = node;
    node = parent?.properties?.[name];
    isRequired = parent?.required?.includes(name) ?? false;
    if (node && isList) node = node.items;
    if (!node) return undefined;
  }
  return { node, isRequired };
}

function code(value: unknown): string {
  return `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
}

function describeAccepted(node: JsonSchemaNode): string {
  if (node.anyOf) return node.anyOf.map(describeAccepted).join(" or ");
  if (node.const !== undefined) return code(node.const);
  if (node.enum) return node.enum.map(code).join(", ");
  if (node.type === "integer" || node.type === "number") {
    const range = node.minimum !== undefined && node.maximum !== undefined ? ` ${node.minimum}–${node.maximum}` : "";
    return `${node.type}${range}`;
  }
  if (node.type === "boolean") return "`true`, `false`";
  if (node.type === "array") return `list${node.minItems ? ` (at least ${node.minItems})` : ""} of ${node.items?.type ?? "values"}`;
  return node.type ?? "JSON";
}

function describeDefault(name: string, node: JsonSchemaNode, isRequired: boolean, description: Description): string {
  const machineDefault = MACHINE_DEPENDENT_DEFAULTS[name];
  if (machineDefault !== undefined) return machineDefault;
  if (node.default !== undefined && !(Array.isArray(node.default) && node.default.length === 0)) return code(node.default);
  if (isRequired) return "required";
  return description.default ?? "none";
}

function cell(text: string): string {
  return text.replace(/\n/g, " ");
}

function renderTable(where: string, root: JsonSchemaNode, descriptions: Descriptions, heading: string): string[] {
  for (const name of Object.keys(root.properties ?? {})) {
    if (!descriptions[name]) throw new Error(`${where}: the setting "${name}" has no description in tools/docs/configuration-descriptions.ts`);
  }
  const rows = Object.entries(descriptions).map(([path, description]) => {
    const found = nodeAt(root, path);
    if (!found) throw new Error(`${where}: "${path}" is described in tools/docs/configuration-descriptions.ts but no schema has it`);
    const { node, isRequired } = found;
    return `| \`${path}\` | ${describeDefault(path, node, isRequired, description)} | ${describeAccepted(node)} | ${cell(description.meaning)} |`;
  });
  return [heading, "", "| Setting | Default | Accepts | Meaning |", "|---|---|---|---|", ...rows, ""];
}

function renderKind(kind: string, schema: z.ZodType): string[] {
  const descriptions = KIND_DESCRIPTIONS[kind];
  if (!descriptions) throw new Error(`the kind "${kind}" has no descriptions in tools/docs/configuration-descriptions.ts`);
  return renderTable(`kind ${kind}`, toJsonSchema(schema), descriptions, `### \`"kind": "${kind}"\``).concat([
    `How Baton reads it: [docs/kinds/${kind}.md](kinds/${kind}.md).`,
    "",
  ]);
}

export function renderConfigurationReference(): string {
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Generated by `npm run docs:config` from the zod schemas (lib/config.ts, lib/auth/access-config.ts and",
    "     each kind's config schema under lib/sources/<kind>/) and the prose in tools/docs/configuration-descriptions.ts.",
    "     Do not edit by hand: tests/unit/docs/configuration-reference.test.ts fails when this file is not current. -->",
    "",
    "Every setting is an environment variable, parsed and validated once at start-up (`lib/config.ts`).",
    "Empty variables count as unset. Bad configuration stops Baton with one line naming the setting, e.g.",
    '`Invalid configuration: BATON_CLUSTERS[0].adminUrl must be an http:// or https:// URL (got "pulsar://x:6650")`.',
    "",
    "## Environment variables",
    "",
    ...renderTable("lib/config.ts", toJsonSchema(envSchema), ENVIRONMENT, "### Baton").slice(0, -1),
    "",
    "The alert rules and webhooks (`BATON_ALERT_RULES`, `BATON_ALERT_WEBHOOKS`) are described in [Alerts](alerts.md).",
    "",
    ...renderTable("lib/auth/access-config.ts", toJsonSchema(accessEnvSchema), ACCESS_ENVIRONMENT, "### Access control"),
    "How the modes work: [Access control](access-control.md).",
    "",
    "### Read outside lib/config.ts",
    "",
    "| Variable | Default | Meaning |",
    "|---|---|---|",
    ...OTHER_ENVIRONMENT.map((row) => `| ${row.names.map((name) => `\`${name}\``).join(", ")} | ${row.default} | ${cell(row.meaning)} |`),
    "",
    "## Clusters",
    "",
    "Clusters from `BATON_CONFIG_FILE`, `BATON_CLUSTERS` and `BATON_PULSAR_ADMIN_URL` are combined; names must be",
    'unique. A cluster object names its `kind` (`"pulsar"` when it names none); its other fields are those of its kind.',
    "",
    ...SOURCE_KINDS.flatMap((kind) => renderKind(kind.kind, kind.configSchema)),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}
