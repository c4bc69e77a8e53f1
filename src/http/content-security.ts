/**
 * The content-security policy of the pages the service serves (the API documentation, the
 * console): everything from this origin only, no inline script, no framing, no form posts.
 * `inlineStyles` allows style attributes, for a page whose library sets them at run time.
 */
export function contentSecurityPolicy(options: { inlineStyles: boolean }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    options.inlineStyles ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
