/**
 * The tools' input schemas as plain JSON Schema with a small validator, instead of zod: zod was
 * about three quarters of the minified `arbor-memory/session` bundle, too much for a Worker
 * (docs/behavior/runtime.md). The object has the two shapes the AI SDK accepts as `inputSchema`
 * without importing `ai` (an optional peer): the `Schema` that `jsonSchema()` from `ai` returns
 * (marked by `Symbol.for("vercel.ai.schema")`, checked first by ai 5, 6 and 7), and a Standard
 * Schema with its JSON Schema (`~standard.validate` and `~standard.jsonSchema`) for any consumer
 * that reads only that.
 */

/** The JSON Schema subset the context tools use: objects of strings, enums and nested objects. */
export interface ToolJsonSchema {
  type: "object" | "string";
  description?: string;
  enum?: readonly string[];
  properties?: Record<string, ToolJsonSchema>;
  required?: readonly string[];
  additionalProperties?: false;
}

/** One validation failure, in the Standard Schema issue shape. */
export interface ToolInputIssue {
  message: string;
  path: readonly string[];
}

/** A tool's `inputSchema`: usable by the AI SDK as a `Schema` and as a Standard Schema. */
export interface ToolInputSchema<Input> {
  readonly jsonSchema: ToolJsonSchema;
  readonly _type: Input;
  validate(
    value: unknown,
  ): { success: true; value: Input } | { success: false; error: TypeError };
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "arbor-memory";
    validate(
      value: unknown,
    ): { value: Input } | { issues: readonly ToolInputIssue[] };
    readonly jsonSchema: {
      input(options?: unknown): ToolJsonSchema;
      output(options?: unknown): ToolJsonSchema;
    };
  };
}

const AI_SCHEMA_MARKER = Symbol.for("vercel.ai.schema");
const AI_VALIDATOR_MARKER = Symbol.for("vercel.ai.validator");

/** A string property, optionally limited to `values`. */
export function stringProperty(
  description: string,
  values?: readonly string[],
): ToolJsonSchema {
  return values
    ? { type: "string", enum: [...values], description }
    : { type: "string", description };
}

/** An object with `properties`, of which `required` must be present; unknown keys are dropped. */
export function objectProperty(
  properties: Record<string, ToolJsonSchema>,
  required: readonly string[],
  description?: string,
): ToolJsonSchema {
  return {
    type: "object",
    ...(description !== undefined ? { description } : {}),
    properties,
    required: [...required],
    additionalProperties: false,
  };
}

/** Wraps an object schema as a tool `inputSchema` whose validation yields `Input`. */
export function toolInputSchema<Input>(
  schema: ToolJsonSchema,
): ToolInputSchema<Input> {
  const check = (value: unknown) => {
    const issues: ToolInputIssue[] = [];
    const parsed = validateValue(schema, value, [], issues);
    return { parsed: parsed as Input, issues };
  };
  return {
    [AI_SCHEMA_MARKER]: true,
    [AI_VALIDATOR_MARKER]: true,
    _type: undefined as Input,
    jsonSchema: schema,
    // Synchronous on purpose: every ai version accepts a plain result, some await it.
    validate(value) {
      const { parsed, issues } = check(value);
      return issues.length === 0
        ? { success: true, value: parsed }
        : { success: false, error: new TypeError(describeIssues(issues)) };
    },
    "~standard": {
      version: 1,
      vendor: "arbor-memory",
      validate(value) {
        const { parsed, issues } = check(value);
        return issues.length === 0 ? { value: parsed } : { issues };
      },
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as ToolInputSchema<Input>;
}

// --- Internal helpers ---

/** The validated copy of `value` (unknown keys dropped), or `undefined` with issues recorded. */
function validateValue(
  schema: ToolJsonSchema,
  value: unknown,
  path: string[],
  issues: ToolInputIssue[],
): unknown {
  if (schema.type === "string") {
    if (typeof value !== "string") {
      issues.push({ message: `expected string, got ${kindOf(value)}`, path });
      return undefined;
    }
    if (schema.enum && !schema.enum.includes(value)) {
      const allowed = schema.enum.map((option) => JSON.stringify(option));
      issues.push({ message: `expected one of ${allowed.join(", ")}`, path });
      return undefined;
    }
    return value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    issues.push({ message: `expected object, got ${kindOf(value)}`, path });
    return undefined;
  }
  const input = value as Record<string, unknown>;
  const output: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const field = input[key];
    if (field === undefined) {
      if (schema.required?.includes(key)) {
        issues.push({ message: "required", path: [...path, key] });
      }
      continue;
    }
    output[key] = validateValue(property, field, [...path, key], issues);
  }
  return output;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function describeIssues(issues: readonly ToolInputIssue[]): string {
  return issues
    .map((issue) =>
      issue.path.length > 0
        ? `${issue.path.join(".")}: ${issue.message}`
        : issue.message,
    )
    .join("; ");
}
