import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../support/harness.ts";
import { mutatedBodies } from "../support/mutations.ts";
import { prng, seedFrom } from "../support/prng.ts";

/**
 * Hostile input against POST /validate, through the harness (which checks every answer
 * against its schema): never a 500, never a crash, only the statuses the contract allows.
 * The random families are seeded; the seed is printed, and HOSTILE_SEED replays a run.
 */

const SEED = seedFrom("HOSTILE_SEED");
console.log(`hostile input seed: ${SEED} (replay with HOSTILE_SEED=${SEED})`);

type Body = string | Uint8Array | ReadableStream<Uint8Array>;
/** `key: null` sends no key; no `key` sends the harness's valid one. */
type Case = {
  label: string;
  body: Body;
  headers?: Record<string, string>;
  key?: string | null;
  statuses?: number[];
};

const ALLOWED = [200, 400, 401, 413, 429];
const IBAN = "DE89370400440532013000";
const VAT = "NL854265259B01";
const MAX_BODY_BYTES = 16_384;
const utf8 = new TextEncoder();

let harness: Harness;
let key: string;
let sent = 0;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro", { rate: 1_000_000, quota: 100_000_000 })).secret;
});
afterAll(() => harness.close());

/** Sends one case; a failure names the case and the seed. */
async function send(hostile: Case): Promise<number> {
  sent += 1;
  try {
    const response = await harness.request("POST", "/validate", {
      key: hostile.key === null ? undefined : (hostile.key ?? key),
      rawBody: hostile.body,
      headers: hostile.headers,
    });
    expect(hostile.statuses ?? ALLOWED).toContain(response.status);
    return response.status;
  } catch (error) {
    throw new Error(`case "${hostile.label}" (seed ${SEED}): ${(error as Error).message}`);
  }
}

async function sendAll(cases: Case[]): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  for (const hostile of cases) {
    const status = await send(hostile);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return statuses;
}

const json = (value: unknown, statuses?: number[]): Case => ({
  label: JSON.stringify(value).slice(0, 80),
  body: JSON.stringify(value),
  statuses,
});

describe("random input (seeded)", () => {
  // One generator per family, so a family run alone (`-t`) replays the same cases.
  const CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded", "", "*/*"];

  test("random bytes", async () => {
    const random = prng(SEED + 1);
    const cases = Array.from({ length: 600 }, (_, index): Case => {
      const length = random.pick([0, 1, 2, 16, 200, 1000, 4000]) + random.int(16);
      const body = Uint8Array.from({ length }, () => random.int(256));
      return {
        label: `random bytes #${index} (${length} bytes)`,
        body,
        headers: { "content-type": random.pick(CONTENT_TYPES) },
      };
    });
    const statuses = await sendAll(cases);
    expect(Object.keys(statuses).map(Number)).toEqual([400]);
  });

  test("JSON token soup", async () => {
    const random = prng(SEED + 2);
    const TOKENS = [
      "{",
      "}",
      "[",
      "]",
      ":",
      ",",
      " ",
      '"',
      "\\",
      '"vat"',
      '"iban"',
      `"${IBAN}"`,
      `"${VAT}"`,
      "null",
      "true",
      "false",
      "0",
      "-0",
      "1e999",
      "-1",
      "0.5",
      '"\\u0000"',
      '"\\ud800"',
      '"\\udfff"',
      '"__proto__"',
      '""',
      "\n",
      '"\\uFEFF"',
      "NaN",
      "Infinity",
      "undefined",
      "'",
      "//",
      "/*",
    ];
    const cases = Array.from({ length: 700 }, (_, index): Case => {
      const body = Array.from({ length: 1 + random.int(40) }, () => random.pick(TOKENS)).join("");
      return { label: `token soup #${index}: ${body.slice(0, 80)}`, body };
    });
    await sendAll(cases);
  });

  test("mutations of valid bodies", async () => {
    const random = prng(SEED + 3);
    const VALID = [
      JSON.stringify({ iban: IBAN }),
      JSON.stringify({ vat: VAT }),
      JSON.stringify({ vat: VAT, iban: IBAN }),
      JSON.stringify({ iban: "DE89 3704 0044 0532 0130 00", note: "ünïcödé 🎉" }),
    ];
    const cases = mutatedBodies(random, VALID, 900).map(
      (body, index): Case => ({
        label: `mutation #${index}: ${new TextDecoder().decode(body).slice(0, 80)}`,
        body,
      }),
    );
    await sendAll(cases);
  });

  test("a valid body split into random chunks, multi-byte characters cut in half", async () => {
    const random = prng(SEED + 4);
    const bytes = utf8.encode(JSON.stringify({ iban: IBAN, note: "ünïcödé — 🎉 ÄÖÜ €" }));
    const cases = Array.from({ length: 50 }, (_, index): Case => {
      const cuts = [
        ...new Set(Array.from({ length: 1 + random.int(12) }, () => random.int(bytes.length))),
      ].sort((a, b) => a - b);
      const chunks = [0, ...cuts].map((start, at) => bytes.slice(start, cuts[at] ?? bytes.length));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      });
      return { label: `chunked #${index} at ${cuts.join(",")}`, body, statuses: [200] };
    });
    await sendAll(cases);
  });
});

describe("hostile field values", () => {
  const LOOKALIKES = [
    "ＤＥ８９３７０４００４４０５３２０１３０００", // fullwidth
    "DE89３７０４００４４０５３２０１３０００",
    "DЕ89370400440532013000", // Cyrillic Е
    "АТU12345678", // Cyrillic А, Т
    "ΕL123456783", // Greek Ε
    "NL854265259В01", // Cyrillic В
    "DE٨٩370400440532013000", // Arabic-Indic digits
    "DE⁸⁹370400440532013000", // superscripts
    "DE89\u00a03704\u00a00044", // no-break spaces
    "\u202eDE89370400440532013000", // right-to-left override
    "DE89370400440532013000\u0301", // combining accent
    "DE89\u0000370400440532013000", // NUL
    "DE\u0000123456789",
    "\ud800",
    "DE89\udfff370400440532013000",
    "\ud83d\ude00",
    "ǅE89370400440532013000",
    "ß".repeat(40),
    "🎉".repeat(20),
  ];
  const NOT_STRINGS: unknown[] = [
    0,
    -1,
    1e308,
    0.1,
    true,
    false,
    null,
    [],
    {},
    [IBAN],
    { iban: IBAN },
    { toString: IBAN },
    [[[]]],
  ];
  const LENGTHS = [0, 1, 39, 40, 41, 59, 60, 61, 1000, 16_000];

  test("look-alikes, invisible and broken characters are refused locally, never sent to VIES", async () => {
    const viesCalls = harness.vies.calls.total;
    await sendAll(LOOKALIKES.flatMap((value) => [json({ vat: value }, [400]), json({ iban: value }, [400])]));
    expect(harness.vies.calls.total).toBe(viesCalls);
    await sendAll(
      LOOKALIKES.flatMap((value) => [
        json({ vat: value, iban: IBAN }, [200]),
        json({ vat: VAT, iban: value }, [200]),
      ]),
    );
  });

  test("invisible characters from copy and paste are ignored alike in both fields", async () => {
    for (const invisible of ["\u200b", "\ufeff", "\u00ad"]) {
      const response = await harness.validate<{ iban: { valid: boolean; iban: string } }>(key, {
        iban: `${invisible}${IBAN}${invisible}`,
        vat: `DE89${invisible}3704`,
      });
      expect(response.status).toBe(200);
      expect(response.body.iban).toMatchObject({ valid: true, iban: IBAN });
    }
  });

  test("numbers, booleans, null, arrays and objects as field values → 400", async () => {
    const cases = NOT_STRINGS.flatMap((value) => [
      json({ vat: value }, [400]),
      json({ iban: value }, [400]),
      json({ vat: value, iban: IBAN }, [400]),
    ]);
    await sendAll(cases);
  });

  test("strings of every length around the bounds", async () => {
    const cases = LENGTHS.flatMap((length) =>
      ["vat", "iban"].flatMap((field) => [
        json({ [field]: "1".repeat(length) }),
        json({ [field]: `DE${"9".repeat(Math.max(0, length - 2))}` }),
        json({ [field]: "\\".repeat(length) }),
      ]),
    );
    const escaped = `{"iban":"${"\\u0041".repeat(2000)}"}`;
    cases.push({ label: "2000 escaped characters", body: escaped, statuses: [400] });
    cases.push({ label: "a 100 kB string", body: `{"iban":"${"x".repeat(100_000)}"}`, statuses: [413] });
    await sendAll(cases);
  });

  test("duplicate keys: the last one wins", async () => {
    expect(await send({ label: "iban twice", body: `{"iban":"x","iban":"${IBAN}"}`, statuses: [200] })).toBe(
      200,
    );
    expect(
      await send({ label: "iban twice, bad last", body: `{"iban":"${IBAN}","iban":5}`, statuses: [400] }),
    ).toBe(400);
    await send({
      label: "vat 500 times",
      body: `{${`"vat":"${VAT}",`.repeat(500)}"vat":1}`,
      statuses: [400],
    });
  });
});

describe("hostile structure", () => {
  /** `levels` objects, or arrays, one inside the other. */
  const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  test("unclosed brackets, within and beyond the size bound", async () => {
    const cases = [100, 10_000, MAX_BODY_BYTES, MAX_BODY_BYTES + 1, 20_000].flatMap((count): Case[] => [
      { label: `${count} [`, body: "[".repeat(count), statuses: [count > MAX_BODY_BYTES ? 413 : 400] },
      { label: `${count} {`, body: "{".repeat(count), statuses: [count > MAX_BODY_BYTES ? 413 : 400] },
    ]);
    for (const count of [10_000, MAX_BODY_BYTES]) {
      const body = `{"iban":"${IBAN}","x":${"[".repeat(count)}`;
      cases.push({
        label: `iban then ${count} [`,
        body,
        statuses: [body.length > MAX_BODY_BYTES ? 413 : 400],
      });
    }
    await sendAll(cases);
  });

  test("deep nesting: ignored in an extra field, refused in a field, never a crash", async () => {
    // The largest depths that fit within the size bound.
    const cases = [10, 1000, 2500, 8000].flatMap((levels): Case[] => [
      {
        label: `extra field ${levels} arrays deep`,
        body: `{"iban":"${IBAN}","x":${arrays(levels)}}`,
        statuses: [200],
      },
      {
        label: `extra field ${levels} objects deep`,
        body: `{"iban":"${IBAN}","x":${objects(Math.min(levels, 2500))}}`,
        statuses: [200],
      },
      { label: `iban ${levels} arrays deep`, body: `{"iban":${arrays(levels)}}`, statuses: [400] },
      {
        label: `vat ${levels} objects deep`,
        body: `{"vat":${objects(Math.min(levels, 2500))}}`,
        statuses: [400],
      },
      { label: `${levels} arrays at the root`, body: arrays(levels), statuses: [400] },
    ]);
    await sendAll(cases);
    const refused = await harness.request("POST", "/validate", { key, rawBody: `{"iban":${arrays(8000)}}` });
    expect(refused.body).toEqual({ error: { code: "invalid_request", message: "`iban` must be a string" } });
  });

  test("values whose string conversion throws are refused, not stringified", async () => {
    const cases = [
      '{"toString":1}',
      '{"toString":"x","valueOf":"y"}',
      '[{"toString":1}]',
      '[[[{"valueOf":{},"toString":[]}]]]',
    ].flatMap((value): Case[] => [
      { label: `vat ${value}`, body: `{"vat":${value}}`, statuses: [400] },
      { label: `iban ${value} beside a vat`, body: `{"vat":"${VAT}","iban":${value}}`, statuses: [400] },
      { label: `extra ${value}`, body: `{"iban":"${IBAN}","x":${value}}`, statuses: [200] },
    ]);
    await sendAll(cases);
  });

  test("many keys: 10k keys is over the size bound, 1000 keys are read", async () => {
    const keys = (count: number) =>
      Array.from({ length: count }, (_, index) => `"k${index}":${index}`).join(",");
    await sendAll([
      { label: "10k keys", body: `{${keys(10_000)}}`, statuses: [413] },
      { label: "10k keys and an iban", body: `{${keys(10_000)},"iban":"${IBAN}"}`, statuses: [413] },
      { label: "1000 keys", body: `{${keys(1000)}}`, statuses: [400] },
      { label: "1000 keys and an iban", body: `{${keys(1000)},"iban":"${IBAN}"}`, statuses: [200] },
    ]);
  });

  test("prototype-pollution keys neither smuggle a field in nor pollute anything", async () => {
    const smuggled = { iban: IBAN, vat: VAT, polluted: true };
    for (const name of [
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "__defineGetter__",
    ]) {
      await send({
        label: `${name} alone`,
        body: `{"${name}":${JSON.stringify(smuggled)}}`,
        statuses: [400],
      });
      await send({ label: `${name} as a string`, body: `{"${name}":"${IBAN}"}`, statuses: [400] });
      await send({
        label: `${name} beside an iban`,
        body: `{"${name}":${JSON.stringify(smuggled)},"iban":"${IBAN}"}`,
        statuses: [200],
      });
    }
    await send({
      label: "constructor.prototype",
      body: `{"constructor":{"prototype":${JSON.stringify(smuggled)}},"iban":"${IBAN}"}`,
      statuses: [200],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).iban).toBeUndefined();
  });
});

describe("hostile encoding and headers", () => {
  const valid = utf8.encode(JSON.stringify({ iban: IBAN }));

  test("encodings: BOM, UTF-16, overlong and surrogate UTF-8, Latin-1", async () => {
    const utf16 = new Uint8Array([
      0xff,
      0xfe,
      ...[...JSON.stringify({ iban: IBAN })].flatMap((char) => [char.charCodeAt(0), 0]),
    ]);
    await sendAll([
      { label: "UTF-8 BOM", body: new Uint8Array([0xef, 0xbb, 0xbf, ...valid]), statuses: [200] },
      {
        label: "two BOMs",
        body: new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...valid]),
        statuses: [400],
      },
      { label: "UTF-16LE with BOM", body: utf16, statuses: [400] },
      { label: "overlong '{'", body: new Uint8Array([0xc1, 0xbb, ...valid.slice(1)]), statuses: [400] },
      {
        label: "raw surrogate bytes",
        body: new Uint8Array([...utf8.encode('{"vat":"'), 0xed, 0xa0, 0x80, 0x22, 0x7d]),
        statuses: [400],
      },
      {
        label: "Latin-1 é",
        body: new Uint8Array([...utf8.encode('{"vat":"'), 0xe9, 0x22, 0x7d]),
        statuses: [400],
      },
      {
        label: "raw NUL in a string",
        body: new Uint8Array([...utf8.encode('{"iban":"DE'), 0, 0x22, 0x7d]),
        statuses: [400],
      },
    ]);
  });

  test("weird Content-Type values: the body is still read as JSON", async () => {
    const TYPES = [
      "",
      "text/plain",
      "application/xml",
      "multipart/form-data; boundary=x",
      "multipart/form-data",
      "application/x-www-form-urlencoded",
      "application/json; charset=utf-16",
      "application/json; charset=latin1",
      "application/octet-stream",
      "APPLICATION/JSON",
      "application/json;;;;",
      "application/json\tx",
      ";",
      "*/*",
      `application/${"x".repeat(8000)}`,
      "application/jsön",
    ];
    await sendAll(
      TYPES.map((type) => ({
        label: `content-type ${type.slice(0, 40)}`,
        body: valid,
        headers: { "content-type": type },
        statuses: [200],
      })),
    );
  });

  test("absurd Content-Length values", async () => {
    // Malformed or wrong values: the body is still read within the bound, whatever it says.
    const cases = ["-1", "abc", "1e3", "1e20", "0", "1", " 21", "0x10", "NaN", "Infinity"].map(
      (length): Case => ({
        label: `content-length ${length}`,
        body: valid,
        headers: { "content-length": length },
      }),
    );
    for (const length of ["16385", "99999999999999999999", String(2 ** 53)]) {
      cases.push({
        label: `content-length ${length}`,
        body: valid,
        headers: { "content-length": length },
        statuses: [413],
      });
    }
    await sendAll(cases);
  });

  test("weird keys are 401, before the body is read", async () => {
    const KEYS = [
      `vsk_${"A".repeat(10_000)}`,
      "x".repeat(100_000),
      `${key.slice(0, -1)}é`,
      `${key}é`,
      `${key}${key}`,
      `vsk_${"é".repeat(43)}`,
      "vsk_",
      "null",
      "undefined",
      "' OR 1=1 --",
      "../../etc/passwd",
    ];
    const cases = KEYS.flatMap((weird): Case[] => [
      { label: `x-api-key ${weird.slice(0, 40)}`, body: "not json", key: weird, statuses: [401] },
      {
        label: `bearer ${weird.slice(0, 40)}`,
        body: "not json",
        key: null,
        headers: { authorization: `Bearer ${weird}` },
        statuses: [401],
      },
    ]);
    // Headers strip surrounding whitespace, so these are the real key, and the body is what fails.
    for (const padded of [`${key} `, ` ${key}`, `${key}\t`]) {
      cases.push({
        label: `padded key ${JSON.stringify(padded.slice(0, 6))}`,
        body: "not json",
        key: padded,
        statuses: [400],
      });
    }
    await sendAll(cases);
  });

  test("non-ASCII and oversized header values elsewhere are harmless", async () => {
    const headers: Record<string, string>[] = [
      { "x-request-id": "ünïcödé" },
      { "x-request-id": "x".repeat(10_000) },

      { "user-agent": "\u00ff".repeat(1000) },
      { "x-forwarded-for": "1.2.3.4, ünknown" },
    ];
    const statuses = await sendAll(
      headers.map((extra) => ({ label: `header ${Object.keys(extra)[0]}`, body: valid, headers: extra })),
    );
    expect(statuses).toEqual({ 200: headers.length });
    await send({
      label: "a long gateway key beside a direct key",
      body: valid,
      headers: { "x-gateway-key": "k".repeat(10_000) },
      statuses: [401],
    });
  });
});

describe("after all of it", () => {
  test("nothing was logged as unhandled, and a normal request still works", async () => {
    expect(sent).toBeGreaterThan(2000);
    expect(harness.logs.filter((line) => line.event === "unhandled_error")).toEqual([]);
    const response = await harness.validate(key, { iban: IBAN });
    expect(response.status).toBe(200);
  });
});
