/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF (LF accepted on
 * input), a field holding a comma, a quote or a line break enclosed in double quotes, a quote
 * inside doubled.
 */

export class CsvError extends Error {
  override name = "CsvError";
}

/**
 * The records of a CSV text, each an array of fields. A UTF-8 byte-order mark is skipped, a
 * last line break ends the last record rather than starting an empty one, and empty lines are
 * skipped. Throws a CsvError naming the line of a quote left open, of a quote inside a field
 * not enclosed in quotes, or of text after a closing quote.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  /** Inside a quoted field / just after its closing quote / the current record has content. */
  let quoted = false;
  let closed = false;
  let content = false;
  let line = 1;
  let openedOn = 0;
  const endField = () => {
    record.push(field);
    field = "";
    closed = false;
  };
  const endRecord = () => {
    endField();
    if (content) records.push(record);
    record = [];
    content = false;
  };
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char !== '"') {
        if (char === "\n") line++;
        field += char;
      } else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        closed = true;
      }
    } else if (char === ",") {
      content = true;
      endField();
    } else if (char === "\n" || (char === "\r" && text[i + 1] === "\n")) {
      if (char === "\r") i++;
      endRecord();
      line++;
    } else if (closed) {
      throw new CsvError(`line ${line}: text after the closing quote of a field`);
    } else if (char === '"') {
      if (field !== "") throw new CsvError(`line ${line}: a quote inside a field not enclosed in quotes`);
      quoted = true;
      content = true;
      openedOn = line;
    } else {
      field += char;
      content = true;
    }
  }
  if (quoted) throw new CsvError(`line ${openedOn}: a quoted field is never closed`);
  if (content || field !== "") {
    content = true;
    endRecord();
  }
  return records;
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
