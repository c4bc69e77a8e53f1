import type { ComponentChildren } from "preact";

/** `national_check` → "National check". */
export const humanize = (name: string) => {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export const dateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

type ErrorLike = { code: string; message: string };
const isError = (value: object): value is ErrorLike =>
  typeof (value as ErrorLike).code === "string" && typeof (value as ErrorLike).message === "string";

/** Any value of an answer, for a person: yes/no, an error's message, an object's fields. */
export function Value({ value }: { value: unknown }): ComponentChildren {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return value.toLocaleString();
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map((item) => String(item)).join(", ");
  if (isError(value)) return `${value.message} (${value.code})`;
  return <Fields entries={Object.entries(value)} />;
}

/** Name and value pairs, those with no value left out. */
export function Fields({ entries }: { entries: [string, unknown][] }) {
  return (
    <dl class="fields">
      {entries
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([name, value]) => (
          <div key={name}>
            <dt>{humanize(name)}</dt>
            <dd>
              <Value value={value} />
            </dd>
          </div>
        ))}
    </dl>
  );
}

/**
 * The fields of `result` this page has no words of its own for, shown as the API names them:
 * what the API adds later (a national check, a match verdict) is on the page the day it answers it.
 */
export function OtherFields({ result, known }: { result: object; known: readonly string[] }) {
  const others = Object.entries(result).filter(([name]) => !known.includes(name));
  return others.length > 0 ? <Fields entries={others} /> : null;
}

export type Verdict = "valid" | "invalid" | "unknown";

export function VerdictLine({ verdict, children }: { verdict: Verdict; children: ComponentChildren }) {
  return <p class={`verdict verdict-${verdict}`}>{children}</p>;
}
