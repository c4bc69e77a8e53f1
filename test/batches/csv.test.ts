import { describe, expect, test } from "bun:test";
import { CsvError, CsvLimitError, csvField, csvRecord, csvRecords } from "../../src/batches/csv.ts";

const LIMITS = { maxFields: 8, maxRecordLength: 40 };
const parseCsv = (text: string) => [...csvRecords(text, LIMITS)];

describe("csvRecords (RFC 4180)", () => {
  test.each([
    [
      "CRLF records, a last line break",
      "vat,iban\r\nDE1,X\r\n",
      [
        ["vat", "iban"],
        ["DE1", "X"],
      ],
    ],
    ["LF records, no last line break", "vat\nDE1", [["vat"], ["DE1"]]],
    [
      "quoted fields with commas, quotes and line breaks",
      'a,"b,c","d""e","f\r\ng"\n',
      [["a", "b,c", 'd"e', "f\r\ng"]],
    ],
    [
      "empty fields keep their place",
      "a,,c\n,,\n",
      [
        ["a", "", "c"],
        ["", "", ""],
      ],
    ],
    ["empty lines are skipped", "a\n\n\r\nb\n", [["a"], ["b"]]],
    ["a byte-order mark is skipped", "\ufeffvat\nDE1\n", [["vat"], ["DE1"]]],
    ["an empty quoted field is a record", '""\n', [[""]]],
    ["nothing", "", []],
  ])("%s", (_, text, records) => {
    expect(parseCsv(text)).toEqual(records);
  });

  test.each([
    ["a quoted field never closed", 'a\n"open,\nstill open', "line 2: a quoted field is never closed"],
    ["a quote inside an unquoted field", 'ab"c\n', "line 1: a quote inside a field not enclosed in quotes"],
    ["text after a closing quote", 'x\n"a"b,c\n', "line 2: text after the closing quote of a field"],
  ])("refuses %s, naming the line", (_, text, message) => {
    expect(() => parseCsv(text)).toThrow(new CsvError(message));
  });

  test.each([
    [
      "more fields than allowed",
      "a\n1,2,3,4,5,6,7,8,9\n",
      "line 2 has more than 8 fields, the most a record may have",
    ],
    [
      "an empty header wider than allowed",
      `a${",".repeat(100_000)}\n`,
      "line 1 has more than 8 fields, the most a record may have",
    ],
    [
      "a record too long",
      `a\n\n${"x".repeat(41)}\n`,
      "line 3 is longer than 40 characters, the most a record may have",
    ],
    [
      "a quoted field too long",
      `a,"${"x".repeat(20)}\n${"x".repeat(20)}"\n`,
      "line 1 is longer than 40 characters, the most a record may have",
    ],
  ])("refuses %s, naming the limit", (_, text, message) => {
    expect(() => parseCsv(text)).toThrow(new CsvLimitError(message));
  });

  test("records are read as they are asked for: what follows the last one read is never looked at", () => {
    const records = csvRecords(`a\nb\n"never closed`, LIMITS);
    expect(records.next().value).toEqual(["a"]);
    expect(records.next().value).toEqual(["b"]);
  });

  test("the limits are inclusive", () => {
    const widest = Array.from({ length: 8 }, (_, i) => String(i));
    const longest = "y".repeat(40);
    expect(parseCsv(`${widest.join(",")}\n${longest}\n`)).toEqual([widest, [longest]]);
  });
});

describe("writing CSV", () => {
  test("quotes what needs quoting, doubles quotes, ends records with CRLF", () => {
    expect(csvRecord(["plain", "a,b", 'say "hi"', "two\nlines", null, 7, false])).toBe(
      'plain,"a,b","say ""hi""","two\nlines",,7,false\r\n',
    );
  });

  test("a value a spreadsheet would run as a formula stays text", () => {
    for (const value of ['=HYPERLINK("x")', "+1", "-1", "@SUM(A1)", "\tx"]) {
      expect(csvField(value).replace(/^"|"$/g, "").startsWith("'")).toBe(true);
    }
    expect(csvField("ACME=1")).toBe("ACME=1");
  });

  test("a formula after a separator another locale's spreadsheet splits at stays text", () => {
    // Excel in de-DE, fr-FR, it-IT, es-ES, nl-NL splits a line at `;`, where our quotes do not
    // count: each piece is a cell of its own, which must not start a formula either.
    const cells = (text: string) => text.split(/[,;\t|\r\n]/);
    for (const value of [
      "ref;=HYPERLINK(A1);x",
      "a;+1",
      "a; -1",
      "a|@SUM(A1)",
      "a\t=1",
      "line\n=cmd|' /c calc'!A1",
      "line\r\n@x",
      "a,=1",
      "a;\t=1",
    ]) {
      const written = csvField(value).replace(/^"|"$/g, "").replaceAll('""', '"');
      for (const cell of cells(written)) expect(cell.trimStart()).not.toMatch(/^[=+\-@]/);
    }
    expect(csvField("ACME;Berlin")).toBe("ACME;Berlin");
  });

  test("what is written reads back the same (apostrophes aside)", () => {
    const rows = [
      ["index", "name"],
      ["0", 'Société "Générale", Paris\nLa Défense'],
      ["1", ""],
    ];
    const written = rows.map((row) => csvRecord(row)).join("");
    expect([...csvRecords(written, { maxFields: 2, maxRecordLength: 100 })]).toEqual(rows);
  });
});
