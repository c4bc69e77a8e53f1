import { describe, expect, test } from "bun:test";
import { type BankRow, selectBanks } from "../../registry/banks.ts";
import { combineStructures, deepMerge } from "../../registry/structures.ts";
import { expandSpec, parseSwiftRegistry, parseTsv } from "../../registry/swift-registry.ts";
import { bankKey, bankKeyOf, findBank, parseBanksTsv } from "../../src/iban/bank-directory.ts";
import { parseIbanRegistry } from "../../src/iban/registry.ts";

const HEADER = "country\tbank_code\tbic\tname\n";

describe("banks.tsv parsing", () => {
  test("builds sorted per-country tables that find codes by binary search", () => {
    const tables = parseBanksTsv(
      `${HEADER}GB\tBARC\tBARCGB22\tBarclays\nGB\tNWBK\tNWBKGB2L\tNatWest\nSI\t01000\tBSLJSI2X\tBanka Slovenije\n`,
    );
    const gb = tables.get("GB");
    if (!gb) throw new Error("no GB table");
    expect(findBank(gb, bankKey("NWBK"))).toEqual({ name: "NatWest", bic: "NWBKGB2L" });
    expect(findBank(gb, bankKey("BARC"))).toEqual({ name: "Barclays", bic: "BARCGB22" });
    expect(findBank(gb, bankKey("HSBC"))).toBeNull();
    expect(findBank(gb, bankKeyOf(Buffer.from("XXBARC"), 2, 6))).toEqual({
      name: "Barclays",
      bic: "BARCGB22",
    });
    expect(bankKey("barc")).toBe(-1);
    expect(gb.codeLength).toBe(4);
    expect([...tables.keys()]).toEqual(["GB", "SI"]);
  });

  test.each([
    ["a missing field", "GB\tBARC\tBARCGB22\n"],
    ["an extra field", "GB\tBARC\tBARCGB22\tBarclays\textra\n"],
    ["an empty name", "GB\tBARC\tBARCGB22\t\n"],
    ["a code with other characters", "GB\tba-c\tBARCGB22\tBarclays\n"],
    ["codes out of order", "GB\tNWBK\tNWBKGB2L\tNatWest\nGB\tBARC\tBARCGB22\tBarclays\n"],
    ["a duplicate code", "GB\tBARC\tBARCGB22\tBarclays\nGB\tBARC\tBARCGB22\tBarclays\n"],
    ["countries out of order", "SI\t01000\tBSLJSI2X\tBanka\nGB\tBARC\tBARCGB22\tBarclays\n"],
    ["codes of different lengths", "GB\tBARC\tBARCGB22\tBarclays\nGB\tNWBKX\tNWBKGB2L\tNatWest\n"],
  ])("rejects %s", (_, rows) => {
    expect(() => parseBanksTsv(HEADER + rows)).toThrow();
  });
});

describe("registry consistency checks at load", () => {
  const format = {
    ibanLength: 8,
    bbanSpec: "2!n2!n",
    bbanClasses: "nnnn",
    bank: [0, 2],
    branch: null,
    account: [2, 4],
    nationalCheck: null,
    sepa: false,
    source: "swift",
    parent: null,
  };
  const files = (structure: object, banks = HEADER) => ({
    structures: JSON.stringify({ QX: structure }),
    banks,
    germany: "bank_code\tcheck_method\tiban_rule\n",
    version: JSON.stringify({ version: "test" }),
  });

  test("accepts a consistent registry", () => {
    const registry = parseIbanRegistry(files(format, `${HEADER}QX\t12\tQXQXQXQX\tBank\n`));
    expect(registry.version).toBe("test");
    expect(registry.formats.get("QX")?.ibanLength).toBe(8);
  });

  test.each([
    ["a length that does not match the classes", { ...format, ibanLength: 9 }],
    ["an unknown character class", { ...format, bbanClasses: "nnne" }],
    ["a span outside the BBAN", { ...format, account: [2, 5] }],
  ])("rejects %s", (_, structure) => {
    expect(() => parseIbanRegistry(files(structure))).toThrow();
  });

  test("rejects bank codes that cannot be the IBAN's bank field", () => {
    expect(() => parseIbanRegistry(files(format, `${HEADER}QX\t123\tQXQXQXQX\tBank\n`))).toThrow();
    expect(() =>
      parseIbanRegistry(files({ ...format, bank: null }, `${HEADER}QX\t12\tQXQXQXQX\tBank\n`)),
    ).toThrow();
  });
});

describe("registry build helpers", () => {
  test("parseTsv reads CRLF rows, tabs, and quoted cells with newlines and doubled quotes", () => {
    expect(parseTsv('a\t"b\r\nc"\td\r\n"say ""hi"""\t\te\r\n')).toEqual([
      ["a", "b\r\nc", "d"],
      ['say "hi"', "", "e"],
    ]);
  });

  test("parseSwiftRegistry reads the transposed table", () => {
    const rows = [
      ["Data element", "Country"],
      ["Name of country", '"Moldova, Republic of\r\n"'],
      ["IBAN prefix country code (ISO 3166)", "QX"],
      ["Country code includes other countries/territories", "QY, QZ (part)"],
      ["SEPA country", "Yes"],
      ["SEPA country also includes", "QY, Azores"],
      ["BBAN structure", "2!n2!a"],
      ["BBAN length", "4"],
      ["Bank identifier position within the BBAN", "1-2"],
      ["Branch identifier position within the BBAN", "N/A"],
      ["IBAN structure", "QX2!n2!n2!a"],
      ["IBAN length", "8"],
      ["IBAN electronic format example", "QX12 34AB"],
    ];
    const [country] = parseSwiftRegistry(`${rows.map((row) => row.join("\t")).join("\r\n")}\r\n`);
    expect(country).toEqual({
      code: "QX",
      name: "Moldova, Republic of",
      territories: ["QY", "QZ"],
      sepa: true,
      sepaAlsoIncludes: ["QY"],
      bbanSpec: "2!n2!a",
      bbanLength: 4,
      bank: [0, 2],
      branch: null,
      ibanSpec: "QX2!n2!n2!a",
      ibanLength: 8,
      example: "QX1234AB",
    });
    const { structures } = combineStructures(country ? [country] : [], {});
    expect(structures.QY).toMatchObject({
      sepa: true,
      source: "swift-territory",
      parent: "QX",
      account: [2, 4],
    });
    expect(structures.QZ).toMatchObject({ sepa: false, source: "swift-territory", parent: "QX" });
  });

  test("expandSpec expands fixed groups and refuses what the engine cannot check", () => {
    expect(expandSpec("2!n1!a3!c", "test")).toBe("nnaccc");
    expect(() => expandSpec("4!e", "test")).toThrow(/character class "e"/);
    expect(() => expandSpec("4n", "test")).toThrow(/variable-length/);
    expect(() => expandSpec("4!n?", "test")).toThrow(/cannot read/);
  });

  test("deepMerge merges nested objects and replaces scalars and arrays", () => {
    const merged: Record<string, unknown> = deepMerge(
      { a: 1, p: { x: [0, 1], y: [1, 2] } },
      { p: { x: [5, 6] }, b: 2 },
    );
    expect(merged).toEqual({
      a: 1,
      p: { x: [5, 6], y: [1, 2] },
      b: 2,
    });
  });

  test("selectBanks prefers manual rows, then primary, then institution BICs, then the earlier row", () => {
    const row = (order: number, overrides: Partial<BankRow>): BankRow => ({
      country: "QX",
      code: "01",
      bic: "QXBKQXQXXXX",
      name: `row ${order}`,
      primary: false,
      manual: false,
      order,
      ...overrides,
    });
    const pick = (...rows: BankRow[]) => selectBanks(rows, new Set(["QX"])).map((bank) => bank.name);
    expect(pick(row(0, { primary: true }), row(1, { manual: true }))).toEqual(["row 1"]);
    expect(pick(row(0, {}), row(1, { primary: true }))).toEqual(["row 1"]);
    expect(pick(row(0, { bic: "QXBKQXQXB01" }), row(1, {}))).toEqual(["row 1"]);
    expect(pick(row(0, {}), row(1, {}))).toEqual(["row 0"]);
    expect(pick(row(0, { bic: "" }), row(1, { code: "" }), row(2, { country: "QY" }))).toEqual([]);
  });
});
