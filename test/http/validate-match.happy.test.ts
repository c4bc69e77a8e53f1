import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import type { MatchResult } from "../../src/matching/schema.ts";
import type { ValidationRecord } from "../../src/validation/records.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { wellFormedNumbers } from "../vat/service-harness.ts";

const HOUR = 60 * 60 * 1000;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
beforeEach(() => harness.vies.reset());
afterAll(() => harness.close());

const local = (result: "match" | "mismatch") => ({ result, by: "local" }) as const;
const nobody = { result: "not_processed", by: null } as const;
const authority = (result: "match" | "mismatch") => ({ result, by: "authority" }) as const;
/** A match result as the service gives it (typed, for comparing). */
const matched = (result: MatchResult) => result;

describe("POST /validate with `match`", () => {
  test("compared with the disclosed name and address; billed once as a fresh check; the record keeps what was matched", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const match = {
      name: "GitHub BV",
      street: "Vijzelstraat 68",
      postcode: "1017 HL",
      city: "Amsterdam",
      company_type: "B.V.",
    };
    const first = await harness.validate<ValidateResponse>(secret, { vat: "NL854265259B01", match });
    const expected = matched({
      overall: "match",
      name: local("match"),
      street: local("match"),
      postcode: local("match"),
      city: local("match"),
      company_type: local("match"),
    });
    expect({ status: first.status, billable: first.body.billable, match: first.body.vat?.match }).toEqual({
      status: 200,
      billable: true,
      match: expected,
    });
    expect(first.body.usage.used).toBe(1);
    const record = await harness.request<ValidationRecord>("GET", `/validations/${first.body.request_id}`, {
      key: secret,
    });
    expect(record.body).toMatchObject({
      key_id: keyId,
      vat_number: "NL854265259B01",
      name: "GITHUB B.V.",
      match: { sent: match, result: expected },
    });

    // The cached answer is matched the same way, and is not billed.
    harness.clock.advance(HOUR);
    const other = { vat: "NL854265259B01", match: { name: "GitLab B.V.", city: "Amsterdam" } };
    const second = await harness.validate<ValidateResponse>(secret, other);
    expect({
      billable: second.body.billable,
      cached: second.body.vat?.cached,
      match: second.body.vat?.match,
    }).toEqual({
      billable: false,
      cached: true,
      match: matched({ overall: "mismatch", name: local("mismatch"), city: local("match") }),
    });
    expect(second.body.usage.used).toBe(1);
    expect(harness.vies.calls.total).toBe(1);
  });

  test("beside an IBAN: one unit at most", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, {
      vat: "BE0244142664",
      iban: "NL91ABNA0417164300",
      match: { name: "VRT", street: "Auguste Reyerslaan 52", city: "Schaerbeek" },
    });
    expect({
      status: response.status,
      billable: response.body.billable,
      used: response.body.usage.used,
      match: response.body.vat?.match,
      iban: response.body.iban?.valid,
    }).toEqual({
      status: 200,
      billable: true,
      used: 1,
      match: matched({
        overall: "match",
        name: local("match"),
        street: local("match"),
        city: local("match"),
      }),
      iban: true,
    });
  });

  test("a state that discloses nothing (DE): not processed, by nobody", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, {
      vat: "DE811569869",
      match: { name: "Acme GmbH", postcode: "10115" },
    });
    expect(response.body.vat?.match).toEqual(
      matched({ overall: "not_processed", name: nobody, postcode: nobody }),
    );
  });

  test("without `match`, `match` is null", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, { vat: "NL854265259B01" });
    expect(response.body.vat?.match).toBeNull();
  });
});

/** A Spanish number of its own for each test (the cache outlives a test), registered with the fake. */
function spanishNumber(from: number): string {
  const [number] = wellFormedNumbers("ESB", from, 1) as [string];
  harness.vies.addNumber("ES", number.slice(2), {
    valid: true,
    name: "Rodrisa Automoviles",
    trader: { street: "Avda. Reina Victoria", postcode: "28430", city: "Alcorcón" },
  });
  return number;
}

describe("POST /validate with `match` for a Spanish number (Spain compares details itself)", () => {
  test("goes past the cache to the member state: a fresh check with its codes, billed one unit", async () => {
    const vat = spanishNumber(10_000_000);
    const other = await harness.createKey("pro");
    expect((await harness.validate(other.secret, { vat })).status).toBe(200);
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, {
      vat,
      match: { name: "Rodrisa Automoviles", city: "Madrid" },
    });
    expect({
      billable: response.body.billable,
      used: response.body.usage.used,
      cached: response.body.vat?.cached,
      name: response.body.vat?.name,
      match: response.body.vat?.match,
      calls: harness.vies.calls.total,
    }).toEqual({
      billable: true,
      used: 1,
      cached: false,
      name: null,
      match: matched({ overall: "partial", name: authority("match"), city: authority("mismatch") }),
      calls: 2,
    });
  });

  test("with the quota used up: the cached answer, matched here, unbilled", async () => {
    const vat = spanishNumber(20_000_000);
    const other = await harness.createKey("pro");
    expect((await harness.validate(other.secret, { vat })).status).toBe(200);
    const { secret } = await harness.createKey("pro", { quota: 1 });
    expect(
      (await harness.validate<ValidateResponse>(secret, { iban: "NL91ABNA0417164300" })).body.billable,
    ).toBe(true);
    const response = await harness.validate<ValidateResponse>(secret, {
      vat,
      match: { name: "Rodrisa Automoviles" },
    });
    expect({
      status: response.status,
      billable: response.body.billable,
      used: response.body.usage.used,
      cached: response.body.vat?.cached,
      valid: response.body.vat?.valid,
      match: response.body.vat?.match,
      calls: harness.vies.calls.total,
    }).toEqual({
      status: 200,
      billable: false,
      used: 1,
      cached: true,
      valid: true,
      match: matched({ overall: "not_processed", name: nobody }),
      calls: 1,
    });
  });
});
