/**
 * The path of a request URL, by string scanning rather than `new URL` (which throws on the
 * odd URL a garbled Host header produces). One trailing slash is dropped, as Elysia's router
 * does when it matches routes, so `/validate/` is the `/validate` route everywhere.
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf("//");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  const end = Math.min(query < 0 ? url.length : query, hash < 0 ? url.length : hash);
  const path = url.slice(start, end);
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
