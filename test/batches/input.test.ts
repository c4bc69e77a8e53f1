import { describe, expect, test } from "bun:test";
import { CSV_LIMITS, parseBatchBody } from "../../src/batches/input.ts";
import { ApiError } from "../../src/kernel/errors.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const json = (body: unknown, maxItems = 10) =>
  parseBatchBody(bytes(JSON.stringify(body)), "application/json", maxItems);
const csv = (text: string, maxItems = 10) => parseBatchBody(bytes(text), "text/csv; charset=utf-8", maxItems);

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_request");
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
  throw new Error("expected a refusal");
}

describe("a JSON batch", () => {
  test("items with vat, iban or both, references, and a webhook URL", () => {
    expect(
      json({
        items: [
          { vat: "DE811569869", reference: "c-1" },
          { iban: "DE89 3704" },
          { vat: "x", iban: "y", other: 1 },
        ],
        webhook_url: "https://example.com/hook",
      }),
    ).toEqual({
      items: [{ vat: "DE811569869", reference: "c-1" }, { iban: "DE89 3704" }, { vat: "x", iban: "y" }],
      webhook_url: "https://example.com/hook",
    });
  });

  test("an empty string is a value, as in /validate", () => {
    expect(json({ items: [{ vat: "" }] }).items).toEqual([{ vat: "" }]);
  });

  test.each([
    ["not JSON", () => parseBatchBody(bytes("{"), null, 10), "the body is not valid JSON"],
    ["not an object", () => json([1]), "the body must be a JSON object with an `items` array"],
    ["no items array", () => json({ items: "x" }), "`items` must be an array of items"],
    ["no items", () => json({ items: [] }), "the batch has no items"],
    [
      "too many",
      () => json({ items: Array(11).fill({ vat: "x" }) }),
      "a batch holds at most 10 items, got 11",
    ],
    [
      "an item with neither",
      () => json({ items: [{ vat: "x" }, { reference: "r" }] }),
      "item 1: send `vat`, `iban`, or both",
    ],
    ["a non-string field", () => json({ items: [{ vat: 5 }] }), "item 0: `vat` must be a string"],
    ["a null field", () => json({ items: [{ iban: null }] }), "item 0: `iban` must be a string"],
    [
      "a VAT number too long",
      () => json({ items: [{ vat: "D".repeat(41) }] }),
      "item 0: `vat` must be at most 40 characters, got 41",
    ],
    [
      "an IBAN too long",
      () => json({ items: [{ iban: "D".repeat(61) }] }),
      "item 0: `iban` must be at most 60 characters, got 61",
    ],
    [
      "a reference too long",
      () => json({ items: [{ vat: "x", reference: "r".repeat(201) }] }),
      "item 0: `reference` must be at most 200 characters, got 201",
    ],
    [
      "an item that is not an object",
      () => json({ items: [{ vat: "x" }, "DE1"] }),
      "item 1 must be an object with a `vat` and/or an `iban` string",
    ],
    [
      "a webhook URL that is not a string",
      () => json({ items: [{ vat: "x" }], webhook_url: 1 }),
      "`webhook_url` must be a string",
    ],
    ["invalid UTF-8", () => parseBatchBody(new Uint8Array([0xff]), null, 10), "the body is not valid UTF-8"],
    [
      "an empty body",
      () => parseBatchBody(new Uint8Array(0), null, 10),
      "a body is required: JSON with `items`, or CSV",
    ],
  ])("refuses %s, naming the problem", (_, parse, message) => {
    expect(refusal(parse)).toBe(message);
  });
});

describe("a CSV batch", () => {
  test("columns by header name, in any order and case; other columns ignored; empty cells are no value", () => {
    expect(csv("Reference,IBAN,notes,vat\r\nc-1,,x,DE811569869\r\nc-2,DE89 3704,,\r\n")).toEqual({
      items: [
        { vat: "DE811569869", reference: "c-1" },
        { iban: "DE89 3704", reference: "c-2" },
      ],
    });
  });

  test.each([
    [
      "no rows at all",
      "\r\n\r\n",
      "the CSV body is empty: send a header row naming `vat`, `iban` and/or `reference`",
    ],
    [
      "a header naming neither vat nor iban",
      "reference,number\nr,1\n",
      "the CSV header row must name a `vat` or an `iban` column",
    ],
    ["a header only", "vat\n", "the batch has no items"],
    ["a row with neither", "vat,iban,reference\nDE1,,\n,,r\n", "item 1 (row 3): send `vat`, `iban`, or both"],
    [
      "a value too long",
      `vat\n${"D".repeat(41)}\n`,
      "item 0 (row 2): `vat` must be at most 40 characters, got 41",
    ],
    ["a quote left open", 'vat\n"DE1\n', "the CSV body is malformed: line 2: a quoted field is never closed"],
    [
      "a column named twice",
      "vat,iban,VAT\nDE1,,\n",
      "the CSV header row names `vat` twice: which column is meant?",
    ],
  ])("refuses %s", (_, text, message) => {
    expect(refusal(() => csv(text))).toBe(message);
  });
});

describe("a CSV batch is read within bounds", () => {
  test("a header wider than the column limit is refused, naming the limit", () => {
    // The shape of the report: `vat`, then empty column names, then rows.
    const text = `vat${",".repeat(100_000)}\n${"DE811569869\n".repeat(100)}`;
    expect(refusal(() => csv(text, 1000))).toBe(
      `the CSV body is refused: line 1 has more than ${CSV_LIMITS.maxFields} fields, the most a record may have`,
    );
  });

  test("a row wider than the column limit is refused", () => {
    const text = `vat\nDE811569869${",x".repeat(CSV_LIMITS.maxFields)}\n`;
    expect(refusal(() => csv(text))).toBe(
      `the CSV body is refused: line 2 has more than ${CSV_LIMITS.maxFields} fields, the most a record may have`,
    );
  });

  test("a record longer than the length limit is refused, quoted or not", () => {
    const long = "x".repeat(CSV_LIMITS.maxRecordLength);
    for (const row of [`DE811569869,${long}`, `DE811569869,"${long}"`]) {
      expect(refusal(() => csv(`vat,notes\nDE1,\n${row}\n`))).toBe(
        `the CSV body is refused: line 3 is longer than ${CSV_LIMITS.maxRecordLength} characters, the most a record may have`,
      );
    }
  });

  test("the widest header and the longest record allowed are read", () => {
    const header = ["vat", ...Array.from({ length: CSV_LIMITS.maxFields - 2 }, (_, i) => `c${i}`), "iban"];
    const row = ["DE811569869", ...Array(CSV_LIMITS.maxFields - 2).fill(""), "DE89370400440532013000"];
    const filler = "x".repeat(CSV_LIMITS.maxRecordLength - row.join(",").length);
    row[1] = filler;
    expect(row.join(",").length).toBe(CSV_LIMITS.maxRecordLength);
    expect(csv(`${header.join(",")}\n${row.join(",")}\n`)).toEqual({
      items: [{ vat: "DE811569869", iban: "DE89370400440532013000" }],
    });
  });

  test("more rows than a batch holds: refused once the limit is passed", () => {
    expect(refusal(() => csv(`vat\n${"DE1\n".repeat(11)}`, 10))).toBe(
      "a batch holds at most 10 items; the CSV body has more rows",
    );
  });
});

describe("characters the database cannot hold", () => {
  test("a lone UTF-16 surrogate in any field is refused, naming the item and the field", () => {
    for (const field of ["vat", "iban", "reference"]) {
      for (const value of ["\ud800", "DE1\udfff", "\udc00\ud83d"]) {
        expect(refusal(() => json({ items: [{ vat: "DE1" }, { vat: "DE2", [field]: value }] }))).toBe(
          `item 1: \`${field}\` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)`,
        );
      }
    }
    expect(json({ items: [{ vat: "DE1", reference: "🎉" }] })).toEqual({
      items: [{ vat: "DE1", reference: "🎉" }],
    });
  });

  test("a NUL character in an item is refused, naming the item", () => {
    expect(refusal(() => json({ items: [{ vat: "DE1" }, { vat: "DE\u00001" }] }))).toBe(
      "item 1: `vat` must not contain a NUL character",
    );
  });
});
