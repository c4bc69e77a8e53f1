import { t } from "elysia";
import { ApiError } from "../kernel/errors.ts";
import { errorExample } from "./docs.ts";

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/**
 * A cursor this API gave out: a position as a decimal string of at most 9 digits, which every
 * integer column compares with (an empty or missing one is the start, 0). Anything else is
 * 400, never a statement.
 */
export function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^\d{1,9}$/.test(cursor))
    throw new ApiError("invalid_request", "`cursor` is not one this API gave out");
  return Number(cursor);
}

/** Items per page: 1 to MAX_PAGE, DEFAULT_PAGE when not given. */
export function parseLimit(limit: string | undefined): number {
  if (limit === undefined || limit === "") return DEFAULT_PAGE;
  const value = Number(limit);
  if (!/^\d+$/.test(limit) || value < 1 || value > MAX_PAGE) {
    throw new ApiError("invalid_request", `\`limit\` must be a whole number from 1 to ${MAX_PAGE}`);
  }
  return value;
}

/** The query parameters of a paged list, besides its own. */
export const PAGE_QUERY = {
  cursor: t.Optional(t.String({ description: "from `next_cursor` of the previous page" })),
  limit: t.Optional(
    t.String({ description: `items per page, 1 to ${MAX_PAGE}; ${DEFAULT_PAGE} by default` }),
  ),
};

/** The 400 of a paged list that takes no other parameter. */
export const BAD_PAGE = {
  description: "`invalid_request`: a cursor or limit this API did not give out",
  ...errorExample("invalid_request", `\`limit\` must be a whole number from 1 to ${MAX_PAGE}`),
};
