import { t } from "elysia";

/**
 * A string enum schema without the `default` Elysia's `t.UnionEnum` adds (its first value):
 * in a response schema a default would be documented as if it meant something, and could
 * fill a missing value during validation instead of failing it.
 */
export function stringEnum<const T extends string>(
  values: readonly [T, ...T[]],
  options: { description?: string } = {},
) {
  return t.UnionEnum(values, { ...options, default: undefined });
}
