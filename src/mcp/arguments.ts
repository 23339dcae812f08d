import { ArborError } from "../session/index.js";
import { textOf } from "../session/errors/text-of.js";

/** The subset of JSON Schema the tools declare their inputs in, and that `readArguments` checks. */
export type ArgumentSchema =
  | {
      type: "string";
      description: string;
      enum?: readonly string[];
      minLength?: number;
      maxLength?: number;
    }
  | { type: "integer"; description: string; minimum?: number; maximum?: number }
  | {
      type: "array";
      description: string;
      items: { type: "string"; minLength?: number };
      minItems?: number;
      maxItems?: number;
    };

/** A tool's input schema: an object of named arguments. */
export interface ObjectSchema {
  type: "object";
  properties: Record<string, ArgumentSchema>;
  required?: readonly string[];
  additionalProperties: false;
}

/**
 * Checks tool arguments against the tool's own input schema (the one `tools/list` publishes),
 * so the published contract and the check cannot drift apart. Throws `INVALID_ARGUMENT` naming
 * the argument; the server turns it into an `isError` result the model can read and correct.
 */
export function readArguments(
  tool: string,
  schema: ObjectSchema,
  given: unknown,
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  if (given === undefined || given === null) given = {};
  if (typeof given !== "object" || Array.isArray(given))
    invalid(tool, "the arguments must be an object");
  const entries = Object.entries(given as Record<string, unknown>);
  for (const [name, value] of entries) {
    const property = schema.properties[name];
    if (!property) {
      const known = Object.keys(schema.properties).join(", ");
      invalid(tool, `unknown argument "${name}" (it takes: ${known})`);
    }
    // An explicit null means "not given", as clients send for optional fields.
    if (value === null) continue;
    values.set(name, checkValue(tool, name, property, value));
  }
  for (const name of schema.required ?? []) {
    if (!values.has(name)) invalid(tool, `"${name}" is required`);
  }
  return values;
}

/** The ISO time of `since`/`until`, checked; `undefined` when not given. */
export function readTime(
  tool: string,
  name: string,
  value: unknown,
): Date | undefined {
  if (value === undefined) return undefined;
  const time = new Date(textOf(value));
  if (Number.isNaN(time.getTime()))
    invalid(
      tool,
      `"${name}" must be an ISO 8601 time such as 2026-11-30 or 2026-11-30T09:00:00Z, got ${JSON.stringify(value)}`,
    );
  return time;
}

export function invalid(tool: string, message: string): never {
  throw new ArborError("INVALID_ARGUMENT", `${tool}: ${message}`);
}

// --- Internal helpers ---

function checkValue(
  tool: string,
  name: string,
  property: ArgumentSchema,
  value: unknown,
): unknown {
  switch (property.type) {
    case "string": {
      if (typeof value !== "string")
        invalid(tool, `"${name}" must be a string`);
      if (property.enum && !property.enum.includes(value))
        invalid(
          tool,
          `"${name}" must be one of ${property.enum.map((allowed) => JSON.stringify(allowed)).join(", ")}, got ${JSON.stringify(value)}`,
        );
      if (
        property.minLength !== undefined &&
        value.trim().length < property.minLength
      )
        invalid(tool, `"${name}" must not be empty`);
      if (property.maxLength !== undefined && value.length > property.maxLength)
        invalid(
          tool,
          `"${name}" is too long (${value.length} characters, at most ${property.maxLength})`,
        );
      return value;
    }
    case "integer": {
      if (typeof value !== "number" || !Number.isInteger(value))
        invalid(tool, `"${name}" must be an integer`);
      if (property.minimum !== undefined && value < property.minimum)
        invalid(
          tool,
          `"${name}" must be at least ${property.minimum}, got ${value}`,
        );
      if (property.maximum !== undefined && value > property.maximum)
        invalid(
          tool,
          `"${name}" must be at most ${property.maximum}, got ${value}`,
        );
      return value;
    }
    case "array": {
      if (!Array.isArray(value)) invalid(tool, `"${name}" must be an array`);
      if (property.minItems !== undefined && value.length < property.minItems)
        invalid(tool, `"${name}" needs at least ${property.minItems} item(s)`);
      if (property.maxItems !== undefined && value.length > property.maxItems)
        invalid(tool, `"${name}" takes at most ${property.maxItems} items`);
      for (const item of value) {
        if (typeof item !== "string" || item === "")
          invalid(tool, `"${name}" must hold non-empty strings`);
      }
      return value;
    }
  }
}
