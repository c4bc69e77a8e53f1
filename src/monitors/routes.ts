import { Elysia, t } from "elysia";
import { CSV_LIMITS } from "../batches/input.ts";
import type { Config } from "../config.ts";
import type { Caller } from "../http/auth.ts";
import { readBoundedBody, readJsonObject } from "../http/body.ts";
import { directWork } from "../http/direct-work.ts";
import {
  errorExample,
  errorResponses,
  HEADERS,
  jsonExample,
  LIST_BODY_TOO_LARGE,
  WEBHOOK_LOOKUP_UNAVAILABLE,
  type WebhookDoc,
} from "../http/docs.ts";
import {
  MONITOR,
  MONITOR_CSV,
  MONITOR_EVENT,
  MONITOR_EVENT_PAGE,
  MONITOR_LIST_REQUEST,
  MONITOR_NEW,
  MONITOR_PAGE,
  MONITOR_REQUEST,
  MONITORS_CREATED,
} from "../http/examples.ts";
import { models } from "../http/models.ts";
import { BAD_PAGE, PAGE_QUERY, parseCursor, parseLimit } from "../http/paging.ts";
import type { Idempotency } from "../idempotency/plugin.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Database } from "../kernel/db.ts";
import { ApiError } from "../kernel/errors.ts";
import { enabledAuthorities } from "../vat/authorities.ts";
import { acceptWebhookUrl, type WebhookLookup, type WebhookPolicy } from "../webhooks/target.ts";
import { eventsPage } from "./events.ts";
import { type MonitorRequest, parseMonitorBody, readMonitorUpdate } from "./input.ts";
import { MONITOR_STATUSES, MonitorIdSchema, type MonitorStatus, type MonitorUpdate } from "./schema.ts";
import {
  createMonitors,
  deleteMonitor,
  findMonitor,
  monitorsPage,
  requestCheck,
  updateMonitor,
} from "./store.ts";

export type MonitorRoutesDeps = {
  database: Database;
  clock: Clock;
  config: Pick<
    Config,
    | "BATCH_MAX_ITEMS"
    | "BATCH_MAX_BYTES"
    | "MAX_BODY_BYTES"
    | "UK_VAT_ENABLED"
    | "CH_VAT_ENABLED"
    | "NO_VAT_ENABLED"
  >;
  webhookPolicy: WebhookPolicy;
  /** How webhook hosts are looked up when a monitor is created or changed. */
  webhookLookup: WebhookLookup;
  /** Tells this instance's checker that checks are due. */
  wake(): void;
};

/** The events a monitor's `webhook_url` receives. */
export const MONITOR_WEBHOOKS: WebhookDoc[] = [
  {
    type: "vat.registration_changed",
    summary: "A watched number's registration lapsed, or came back",
    description:
      "`valid` turned from true to false (the registration lapsed: invoices to it lose the reverse charge) or from false to true. Also listed at GET /monitors/{id}/events.",
    tag: "Monitors",
    model: "MonitorEvent",
    example: MONITOR_EVENT,
  },
  {
    type: "vat.details_changed",
    summary: "A watched number's registered name or address changed",
    description:
      "Both answers are registered (`valid: true`) and the name or the address the authority gives differs. Member states that disclose neither (Germany, Spain) never send it.",
    tag: "Monitors",
    model: "MonitorEvent",
    example: {
      type: "vat.details_changed",
      data: {
        ...MONITOR_EVENT.data,
        current: { ...MONITOR_EVENT.data.previous, address: "HERENGRACHT 00420\n1017BZ AMSTERDAM" },
      },
    },
  },
  {
    type: "vat.match_changed",
    summary: "The verdict of a watched match changed",
    description:
      "The monitor watches `match` details, both answers are registered, and how the details compare (`match.overall`, or a field's `result`) differs.",
    tag: "Monitors",
    model: "MonitorEvent",
    example: {
      type: "vat.match_changed",
      data: {
        ...MONITOR_EVENT.data,
        previous: {
          ...MONITOR_EVENT.data.previous,
          match: { overall: "match", name: { result: "match", by: "local" } },
        },
        current: {
          ...MONITOR_EVENT.data.previous,
          name: "GITHUB NETHERLANDS B.V.",
          match: { overall: "mismatch", name: { result: "mismatch", by: "local" } },
        },
      },
    },
  },
];

const MONITORS = directWork({
  noun: "monitor",
  plural: "monitors",
  tag: "Monitors",
  model: "Monitor",
  idSchema: MonitorIdSchema,
  exampleId: MONITOR.id,
});

/** The account a monitor route serves, and how many numbers it may watch. */
function watcher(caller: Caller) {
  const account = MONITORS.account(caller);
  if (account.plan.monitors === null)
    throw new ApiError("forbidden", `the ${account.plan.id} plan does not include monitors`);
  return { keyId: account.keyId, plan: account.plan.id, limit: account.plan.monitors };
}

function parseStatus(status: string | undefined): MonitorStatus | null {
  if (status === undefined || status === "") return null;
  if (!(MONITOR_STATUSES as readonly string[]).includes(status))
    throw new ApiError("invalid_request", `\`status\` must be one of ${MONITOR_STATUSES.join(", ")}`);
  return status as MonitorStatus;
}

/**
 * The monitor routes: watch one number or a list (JSON or CSV), list and read a key's
 * monitors, change, delete, check one now, and read its events. A key sees its own monitors
 * only: another key's is answered exactly as an unknown one.
 */
export function monitorRoutes(deps: MonitorRoutesDeps, keyed: Idempotency) {
  const webhook = (raw: string | null | undefined) =>
    typeof raw === "string" ? acceptWebhookUrl(raw, deps.webhookPolicy, deps.webhookLookup) : raw;

  return new Elysia({ name: "monitors" })
    .model(models)
    .use(keyed)
    .post(
      "/monitors",
      async ({ body, caller, set }) => {
        const request = body as MonitorRequest;
        const { keyId, plan, limit } = watcher(caller);
        const { monitors, created } = await createMonitors(deps.database, {
          keyId,
          items: request.items,
          webhookUrl: (await webhook(request.webhookUrl)) ?? null,
          limit: { monitors: limit, plan },
          nowMs: deps.clock.now(),
        });
        if (created.size > 0) deps.wake();
        set.status = created.size > 0 ? 201 : 200;
        if (request.list) return { monitors, created: created.size };
        const [monitor] = monitors as [(typeof monitors)[number]];
        set.headers.location = `/monitors/${monitor.id}`;
        return monitor;
      },
      {
        idempotent: true,
        parse: async ({ request }) =>
          parseMonitorBody(
            await readBoundedBody(request, deps.config.BATCH_MAX_BYTES),
            request.headers.get("content-type"),
            { maxItems: deps.config.BATCH_MAX_ITEMS, enabled: enabledAuthorities(deps.config) },
          ),
        response: {
          200: "MonitorCreation",
          201: "MonitorCreation",
          ...errorResponses(400, 401, 403, 413, 429, 503),
        },
        detail: {
          tags: ["Monitors"],
          summary: "Watch a VAT number, or a list of them",
          description:
            "JSON with `vat` (one number: answered with its monitor) or with `items` (a list: answered with a monitor per item), or CSV (`Content-Type: text/csv`, a list) with a header row naming `vat` and any of `reference`, `interval_days` and the `match_*` columns. A number the key already watches is not watched twice: its monitor is returned as it is. The first check runs at once; then one every `interval_days`, each billed as /validate bills it (a fresh answer of the authority is one unit; a cache hit is free). Changes are events (`GET /monitors/{id}/events`), sent to `webhook_url`.",
          security: [{ ApiKey: [] }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { $ref: "#/components/schemas/MonitorRequest" },
                    { $ref: "#/components/schemas/MonitorListRequest" },
                  ],
                },
                examples: {
                  one: { summary: "One number, matched and with a webhook", value: MONITOR_REQUEST },
                  list: { summary: "A list of customers", value: MONITOR_LIST_REQUEST },
                },
              },
              "text/csv": {
                schema: {
                  type: "string",
                  description: `a header row naming vat and any of reference, interval_days, match_name, match_street, match_postcode, match_city, match_company_type; then one row per number (RFC 4180); at most ${CSV_LIMITS.maxFields} fields and ${CSV_LIMITS.maxRecordLength} characters a record`,
                },
                example: MONITOR_CSV,
              },
            },
          },
          responses: {
            200: {
              description:
                "Nothing created: the key already watches the number (or every number of the list); the monitor (or the list's) as it is",
              headers: HEADERS.rateLimit,
              ...jsonExample(MONITOR),
            },
            201: {
              description:
                "Created: for one number, its monitor (`Location` is its address); for a list, a monitor per item and how many are new",
              headers: {
                ...HEADERS.rateLimit,
                Location: { description: "/monitors/{id}, for one number", schema: { type: "string" } },
              },
              content: {
                "application/json": {
                  examples: {
                    one: { summary: "One number, watched from now on", value: MONITOR_NEW },
                    list: { summary: "A list", value: MONITORS_CREATED },
                  },
                },
              },
            },
            400: {
              description:
                "`invalid_request`: a malformed body, a number that is not well-formed or cannot be checked here (named by its index in a list), an `interval_days` out of 1–365, too many items, more numbers than the plan watches per key, or a refused `webhook_url`; nothing is created",
              ...errorExample(
                "invalid_request",
                "item 3: `vat` is not a well-formed VAT number: DE VAT numbers are 9 digits, the first not 0",
              ),
            },
            ...MONITORS.routeResponses,
            503: WEBHOOK_LOOKUP_UNAVAILABLE,
            413: LIST_BODY_TOO_LARGE,
          },
        },
      },
    )
    .get(
      "/monitors",
      async ({ query, caller }) => {
        const page = await monitorsPage(deps.database, watcher(caller).keyId, {
          status: parseStatus(query.status),
          after: parseCursor(query.cursor),
          limit: parseLimit(query.limit),
        });
        return { monitors: page.monitors, next_cursor: page.next === null ? null : String(page.next) };
      },
      {
        caller: true,
        query: t.Object(
          {
            status: t.Optional(t.String({ description: "`active` or `paused`: only the monitors in it" })),
            ...PAGE_QUERY,
          },
          { additionalProperties: true },
        ),
        response: { 200: "MonitorPage", ...errorResponses(400, 401, 403, 429, 503) },
        detail: {
          tags: ["Monitors"],
          summary: "The key's monitors, oldest first, a page at a time",
          description:
            "Every number the key watches, with its schedule and last answer; `status` keeps to the active or the paused ones. Pass `next_cursor` as `cursor` for the next page.",
          security: [{ ApiKey: [] }],
          responses: {
            200: {
              description: "A page of monitors; `next_cursor` is null on the last page",
              headers: HEADERS.rateLimit,
              ...jsonExample(MONITOR_PAGE),
            },
            400: {
              description: "`invalid_request`: a status, cursor or limit this API does not give out",
              ...errorExample("invalid_request", "`status` must be one of active, paused"),
            },
            ...MONITORS.routeResponses,
          },
        },
      },
    )
    .get(
      "/monitors/:id",
      async ({ params, caller }) => {
        const monitor = await findMonitor(deps.database.rows, watcher(caller).keyId, params.id);
        if (!monitor) throw MONITORS.notFound(params.id);
        return monitor;
      },
      MONITORS.oneRoute(
        "A monitor: its schedule, its last answer and its webhook",
        "When it was last answered and what the answer was, when it is checked next, and how the delivery of its latest event went.",
        { description: "The monitor", example: MONITOR },
      ),
    )
    .patch(
      "/monitors/:id",
      async ({ params, body, caller }) => {
        const update = body as MonitorUpdate;
        const { keyId } = watcher(caller);
        const webhookUrl = await webhook(update.webhook_url);
        const monitor = await updateMonitor(
          deps.database,
          keyId,
          params.id,
          { ...update, ...(webhookUrl !== undefined && { webhook_url: webhookUrl }) },
          deps.clock.now(),
        );
        if (!monitor) throw MONITORS.notFound(params.id);
        deps.wake();
        return monitor;
      },
      {
        ...MONITORS.idParams,
        parse: async ({ request }) =>
          readMonitorUpdate(
            await readJsonObject(
              request,
              deps.config.MAX_BODY_BYTES,
              "a JSON object with the fields to change",
            ),
          ),
        response: { 200: "Monitor", ...errorResponses(400, 401, 403, 404, 413, 429, 503) },
        detail: {
          tags: ["Monitors"],
          summary: "Change a monitor: its interval, reference, webhook or status",
          description:
            "A new `interval_days` moves the next round by the difference. `paused` stops the checks; `active` resumes them, at once if a round was missed meanwhile. A new `webhook_url` receives the events found from now on.",
          security: [{ ApiKey: [] }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/MonitorUpdate" },
                examples: {
                  interval: { summary: "Check weekly", value: { interval_days: 7 } },
                  pause: { summary: "Pause it", value: { status: "paused" } },
                  webhook: { summary: "Stop sending its events", value: { webhook_url: null } },
                },
              },
            },
          },
          responses: {
            200: {
              description: "The monitor, changed",
              headers: HEADERS.rateLimit,
              ...jsonExample({ ...MONITOR, interval_days: 7, next_check_at: "2026-11-20T17:02:44.000Z" }),
            },
            400: {
              description:
                "`invalid_request`: a malformed body, no field to change, a field out of its rules, or a refused `webhook_url`; nothing is changed",
              ...errorExample(
                "invalid_request",
                "`interval_days` must be a whole number of days from 1 to 365",
              ),
            },
            ...MONITORS.routeResponses,
            503: WEBHOOK_LOOKUP_UNAVAILABLE,
            404: MONITORS.noSuch,
            413: {
              description: "`invalid_request`: the body is over the size limit (16 KiB by default)",
              ...errorExample("invalid_request", "the body must be at most 16384 bytes"),
            },
          },
        },
      },
    )
    .delete(
      "/monitors/:id",
      async ({ params, caller }) => {
        const monitor = await deleteMonitor(deps.database, watcher(caller).keyId, params.id);
        if (!monitor) throw MONITORS.notFound(params.id);
        return monitor;
      },
      MONITORS.oneRoute(
        "Stop watching a number",
        "The monitor is deleted with its events; a check under way is not finished (nor billed), and events not yet delivered are not sent.",
        { description: "The monitor, as it was", example: MONITOR },
      ),
    )
    .post(
      "/monitors/:id/check",
      async ({ params, caller, set }) => {
        const monitor = await requestCheck(deps.database, watcher(caller).keyId, params.id, deps.clock.now());
        if (!monitor) throw MONITORS.notFound(params.id);
        deps.wake();
        set.status = 202;
        return monitor;
      },
      {
        params: t.Object({ id: MonitorIdSchema }),
        // It takes no body: whatever is sent is not read (nor refused).
        parse: () => ({}),
        idempotent: true,
        response: { 202: "Monitor", ...errorResponses(401, 403, 404, 429, 503) },
        detail: {
          tags: ["Monitors"],
          summary: "Check a monitor now",
          description:
            "The check runs in the background as a scheduled one would, and is billed the same: a fresh answer of the authority is one unit, a cache hit is free. A paused monitor is checked once and stays paused. Its regular schedule does not move.",
          security: [{ ApiKey: [] }],
          responses: {
            202: {
              description: "Accepted: the monitor, due now",
              headers: HEADERS.rateLimit,
              ...jsonExample({ ...MONITOR, next_check_at: "2026-11-27T08:15:00.000Z" }),
            },
            ...MONITORS.routeResponses,
            404: MONITORS.noSuch,
          },
        },
      },
    )
    .get(
      "/monitors/:id/events",
      async ({ params, query, caller }) => {
        const page = await eventsPage(deps.database, watcher(caller).keyId, params.id, {
          after: parseCursor(query.cursor),
          limit: parseLimit(query.limit),
        });
        if (!page) throw MONITORS.notFound(params.id);
        return { events: page.events, next_cursor: page.next === null ? null : String(page.next) };
      },
      {
        ...MONITORS.idParams,
        query: t.Object(PAGE_QUERY, { additionalProperties: true }),
        response: { 200: "MonitorEventPage", ...errorResponses(400, 401, 403, 404, 429, 503) },
        detail: {
          tags: ["Monitors"],
          summary: "A monitor's events, oldest first, a page at a time",
          description:
            "What changed and when: the history to show an auditor (valid on these dates, lapsed on that one). Each event is the body of the webhook it was sent as, with its id (the webhook's `webhook-id`) and time.",
          security: [{ ApiKey: [] }],
          responses: {
            200: {
              description: "A page of events; `next_cursor` is null on the last page",
              headers: HEADERS.rateLimit,
              ...jsonExample(MONITOR_EVENT_PAGE),
            },
            400: BAD_PAGE,
            ...MONITORS.routeResponses,
            404: MONITORS.noSuch,
          },
        },
      },
    );
}
