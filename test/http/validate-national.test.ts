import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import type { ValidationRecord } from "../../src/validation/records.ts";
import type { StatusResponse } from "../../src/vat/status.ts";
import { allItems, createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const DAY = 24 * 3_600_000;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    background: true,
    env: { METRICS_TOKEN: "metrics-secret", BATCH_POLL_MS: "20" },
  });
});
beforeEach(() => {
  harness.uid.reset();
  harness.brreg.reset();
});
afterAll(() => harness.close());

describe("POST /validate with a Swiss or a Norwegian number", () => {
  test("every spelling of a Swiss UID, answered by the UID register, billed once, then cached", async () => {
    const { secret } = await harness.createKey("pro");
    const first = await harness.validate<ValidateResponse>(secret, { vat: "CHE-101.329.561 MWST" });
    expect({ status: first.status, billable: first.body.billable, vat: first.body.vat }).toMatchObject({
      status: 200,
      billable: true,
      vat: {
        valid: true,
        vat_number: "CHE101329561",
        country_code: "CH",
        name: "UBS AG",
        source: "ch_uid",
        cached: false,
      },
    });
    for (const vat of [
      "CHE101329561",
      "CHE-101.329.561",
      "che 101 329 561 tva",
      "CHE-101.329.561 IVA",
      "CHE101329561VAT",
    ]) {
      const again = await harness.validate<ValidateResponse>(secret, { vat });
      expect([again.body.vat?.vat_number, again.body.vat?.cached, again.body.billable]).toEqual([
        "CHE101329561",
        true,
        false,
      ]);
    }
    expect(first.body.usage.used).toBe(1);
    expect(harness.uid.calls.total).toBe(1);
  });

  test("a Norwegian number with and without MVA; 410 and 404 are answers (valid: false), billed", async () => {
    const { secret } = await harness.createKey("pro");
    const equinor = await harness.validate<ValidateResponse>(secret, { vat: "NO 923 609 016 MVA" });
    expect(equinor.body.vat).toMatchObject({ valid: true, vat_number: "NO923609016", source: "no_brreg" });
    for (const vat of ["NO433695968MVA", "NO974760665"]) {
      const response = await harness.validate<ValidateResponse>(secret, { vat });
      expect([response.status, response.body.vat?.valid, response.body.billable]).toEqual([200, false, true]);
    }
  });

  test("a wrong check digit: 400 invalid_format, nothing asked, nothing billed", async () => {
    const { secret } = await harness.createKey("pro");
    for (const vat of ["CHE-101.329.562", "NO923609017MVA"]) {
      const response = await harness.validate(secret, { vat });
      expect([response.status, (response.body as { error: { code: string } }).error.code]).toEqual([
        400,
        "invalid_format",
      ]);
    }
    expect([harness.uid.calls.total, harness.brreg.calls.total]).toEqual([0, 0]);
  });

  test("the register down and nothing cached: 503 service_unavailable with Retry-After, not billed", async () => {
    const { secret } = await harness.createKey("pro");
    harness.uid.setBehaviour({ kind: "html", status: 503 });
    const response = await harness.validate(secret, { vat: "CHE-107.185.562" });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: "service_unavailable" } });
    expect(response.headers.get("retry-after")).toBe("60");
  });

  test("the register down with a copy: the stale copy, unbilled", async () => {
    const { secret } = await harness.createKey("pro");
    await harness.validate(secret, { vat: "NO988077917" });
    harness.clock.advance(2 * DAY);
    harness.brreg.setBehaviour({ kind: "reset" });
    const response = await harness.validate<ValidateResponse>(secret, { vat: "NO988077917" });
    expect([
      response.status,
      response.body.vat?.valid,
      response.body.vat?.stale,
      response.body.billable,
    ]).toEqual([200, false, true, false]);
  });

  test("a fresh answer has its record, named after its register", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, { vat: "CHE107185562" });
    const record = await harness.request<ValidationRecord>(
      "GET",
      `/validations/${response.body.request_id}`,
      { key: secret },
    );
    expect(record.body).toMatchObject({
      vat_number: "CHE107185562",
      valid: true,
      name: "Boulangerie Aubry",
      source: "ch_uid",
      consultation_number: null,
    });
  });

  test("calls are counted by register; GET /status has a row for each", async () => {
    const { secret } = await harness.createKey("pro");
    await harness.validate(secret, { vat: "NO923609016" });
    const metrics = await (
      await harness.app.handle(
        new Request("http://localhost/metrics", { headers: { authorization: "Bearer metrics-secret" } }),
      )
    ).text();
    expect(metrics).toMatch(
      /vat_upstream_calls_total\{authority="no_brreg",member_state="NO",outcome="valid",path=""\} \d+/,
    );
    const status = await harness.request<StatusResponse>("GET", "/status");
    expect(status.body.registers).toEqual([
      { country_code: "GB", source: "uk_authority", availability: "disabled", checked_at: null },
      expect.objectContaining({ country_code: "CH", source: "ch_uid" }),
      {
        country_code: "NO",
        source: "no_brreg",
        availability: "available",
        checked_at: new Date(harness.clock.now()).toISOString(),
      },
    ]);
    harness.brreg.setBehaviour({ kind: "html", status: 502 });
    await harness.validate(secret, { vat: "NO974760673" });
    const after = await harness.request<StatusResponse>("GET", "/status");
    expect(after.body.registers[2]?.availability).toBe("unavailable");
  });

  test("batch items: checked by their registers like single requests", async () => {
    const { secret } = await harness.createKey("pro", { rate: 1_000_000 });
    const send = sendTo(harness, secret);
    const created = await createBatch(send, {
      items: [
        { vat: "CHE-101.329.561 MWST" },
        { vat: "NO923609016MVA" },
        { vat: "NO988077917" },
        { vat: "CHE100155213" },
      ],
    });
    const batch = await waitForBatch(send, created.id);
    const items = await allItems(send, created.id);
    expect(items.map((item) => [item.vat?.source, item.vat?.valid])).toEqual([
      ["ch_uid", true],
      ["no_brreg", true],
      ["no_brreg", false],
      ["syntax", false],
    ]);
    expect(batch.counts).toMatchObject({ total: 4, done: 4, failed: 0 });
  });
});

describe("CH_VAT_ENABLED and NO_VAT_ENABLED off", () => {
  test("their numbers: 503 service_unavailable, unbilled, nothing asked", async () => {
    const off = await startHarness({ env: { CH_VAT_ENABLED: "false", NO_VAT_ENABLED: "false" } });
    try {
      const { secret } = await off.createKey("pro");
      for (const [vat, register] of [
        ["CHE-101.329.561", "Swiss UID register"],
        ["NO923609016", "Norwegian Register of Legal Entities"],
      ] as const) {
        const response = await off.validate(secret, { vat });
        expect(response.status).toBe(503);
        expect((response.body as { error: { message: string } }).error.message).toContain(
          `${register} is not enabled`,
        );
      }
      const both = await off.validate<ValidateResponse>(secret, {
        vat: "NO923609016",
        iban: "DE89370400440532013000",
      });
      expect([both.status, both.body.vat?.source, both.body.vat?.valid]).toEqual([200, null, null]);
      expect([off.uid.calls.total, off.brreg.calls.total]).toEqual([0, 0]);
      const status = await off.request<StatusResponse>("GET", "/status");
      expect(status.body.registers.map((row) => row.availability)).toEqual([
        "disabled",
        "disabled",
        "disabled",
      ]);
    } finally {
      await off.close();
    }
  });
});
