/**
 * Turns a name or address as an authority sends it into what we return: line endings normalized to
 * `\n`, every line trimmed, blank lines dropped, lines joined with `\n`. `---` (VIES's mark),
 * empty, whitespace-only and missing all mean "not disclosed" (null).
 */
export function disclosed(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  const lines = raw
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const value = lines.join("\n");
  return value === "" || value === "---" ? null : value;
}
