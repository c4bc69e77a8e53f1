/** A route of the API: its path pattern (`:name` for a parameter), methods, and whether it needs a key. */
type Route = { path: string; methods: string[]; key: boolean };

/** Every route the app serves: one table for 405s, metric labels and authentication. */
export const ROUTES: Route[] = [
  { path: "/validate", methods: ["POST"], key: true },
  { path: "/iban/build", methods: ["POST"], key: true },
  { path: "/usage", methods: ["GET"], key: true },
  { path: "/batches", methods: ["POST"], key: true },
  { path: "/batches/:id", methods: ["GET", "DELETE"], key: true },
  { path: "/batches/:id/items", methods: ["GET"], key: true },
  { path: "/monitors", methods: ["GET", "POST"], key: true },
  { path: "/monitors/:id", methods: ["GET", "PATCH", "DELETE"], key: true },
  { path: "/monitors/:id/check", methods: ["POST"], key: true },
  { path: "/monitors/:id/events", methods: ["GET"], key: true },
  { path: "/validations/:request_id", methods: ["GET"], key: true },
  { path: "/status", methods: ["GET"], key: false },
  { path: "/health", methods: ["GET"], key: false },
  { path: "/ready", methods: ["GET"], key: false },
  { path: "/metrics", methods: ["GET"], key: false },
  { path: "/swagger", methods: ["GET"], key: false },
  { path: "/swagger/json", methods: ["GET"], key: false },
  { path: "/console", methods: ["GET"], key: false },
  { path: "/console/assets/:name", methods: ["GET"], key: false },
];

const MATCHERS = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+")}$`),
}));

/** The route a request path belongs to, whatever its method; undefined for a path that is none of ours. */
export function routeOf(path: string): Route | undefined {
  return MATCHERS.find(({ pattern }) => pattern.test(path))?.route;
}

/** Whether `method` on `path` needs an API key. HEAD is answered by the GET route, so guarded like GET. */
export function needsKey(method: string, path: string): boolean {
  const route = routeOf(path);
  return route?.key === true && route.methods.includes(method === "HEAD" ? "GET" : method);
}

/** The routes a gateway bills per call: every answer to them carries `X-Gateway-Billing`. */
export const GATEWAY_BILLED_PATHS: ReadonlySet<string> = new Set(["/validate", "/iban/build"]);
