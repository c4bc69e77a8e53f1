/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF (LF accepted on
 * input), a field holding a comma, a quote or a line break enclosed in double quotes, a quote
 * inside doubled.
 */

export class CsvError extends Error {
  override name = "CsvError";
}

/** A record past one of the bounds a reader sets: too many fields, or too long. */
export class CsvLimitError extends CsvError {
  override name = "CsvLimitError";
}

/** What one record may hold: the work of reading a text is linear in its length within them. */
export type CsvLimits = { maxFields: number; maxRecordLength: number };

/** The end of an unquoted field: a comma, a line break, or a quote that does not belong there. */
const UNQUOTED_END = /[,"\n]|\r\n/g;
const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

/** The line of a position, counted only when a refusal names it. */
function lineOf(text: string, position: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < position; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

/**
 * The records of a CSV text, one at a time, each an array of fields; the reader stops where
 * its consumer does. A UTF-8 byte-order mark is skipped, a last line break ends the last record
 * rather than starting an empty one, and empty lines are skipped. Each character is looked at
 * once. Throws a CsvError naming the line of a quote left open, of a quote inside a field not
 * enclosed in quotes, or of text after a closing quote; a CsvLimitError naming the line of a
 * record with more than `maxFields` fields or more than `maxRecordLength` characters.
 */
export function* csvRecords(text: string, limits: CsvLimits): Generator<string[], void, undefined> {
  const end = text.length;
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const tooLong = (start: number) =>
    new CsvLimitError(
      `line ${lineOf(text, start)} is longer than ${limits.maxRecordLength} characters, the most a record may have`,
    );
  while (at < end) {
    const start = at;
    const record: string[] = [];
    let content = false;
    for (;;) {
      if (record.length === limits.maxFields) {
        throw new CsvLimitError(
          `line ${lineOf(text, start)} has more than ${limits.maxFields} fields, the most a record may have`,
        );
      }
      if (text.charCodeAt(at) === QUOTE) {
        content = true;
        const parts: string[] = [];
        for (let from = at + 1; ; ) {
          const quote = text.indexOf('"', from);
          if (quote < 0) throw new CsvError(`line ${lineOf(text, at)}: a quoted field is never closed`);
          if (quote - start > limits.maxRecordLength) throw tooLong(start);
          parts.push(text.slice(from, quote));
          if (text.charCodeAt(quote + 1) !== QUOTE) {
            at = quote + 1;
            break;
          }
          parts.push('"');
          from = quote + 2;
        }
        record.push(parts.length === 1 ? (parts[0] as string) : parts.join(""));
        const next = text.charCodeAt(at);
        if (at < end && next !== COMMA && next !== LF && !(next === CR && text.charCodeAt(at + 1) === LF)) {
          throw new CsvError(`line ${lineOf(text, at)}: text after the closing quote of a field`);
        }
      } else {
        UNQUOTED_END.lastIndex = at;
        const found = UNQUOTED_END.exec(text);
        const stop = found ? found.index : end;
        if (found?.[0] === '"') {
          throw new CsvError(`line ${lineOf(text, stop)}: a quote inside a field not enclosed in quotes`);
        }
        if (stop > at) content = true;
        record.push(text.slice(at, stop));
        at = stop;
      }
      if (at - start > limits.maxRecordLength) throw tooLong(start);
      if (at >= end) break;
      if (text.charCodeAt(at) === COMMA) {
        content = true;
        at++;
        continue;
      }
      at += text.charCodeAt(at) === CR ? 2 : 1;
      break;
    }
    if (content) yield record;
  }
}

/**
 * Where a spreadsheet may start a cell that would run as a formula: the start of a value, and
 * every separator it may split a line at — Excel in de-DE, fr-FR, it-IT, es-ES or nl-NL splits
 * at `;`, where our quotes do not count, others at tabs or `|` — and every line break, each
 * followed by the spaces a cell may start with. A formula starts with `=`, `+`, `-`, `@`, a
 * tab or a carriage return. Values come from VIES and from callers, so an apostrophe goes
 * before such a start (OWASP's advice against CSV injection): `=HYPERLINK(…)` in a registered
 * name, or after a `;` in a reference, stays text when the file is opened.
 */
const FORMULA_START = /(^|[,;\t|\r\n])(?=[ ]*[=+\-@\t\r])/g;

/** One CSV field: null as empty, a value with a comma, quote or line break in quotes. */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = value.replace(FORMULA_START, "$1'");
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, ended by CRLF. */
export function csvRecord(values: (string | number | boolean | null)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
