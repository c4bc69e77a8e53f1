import { describe, expect, test } from "bun:test";
import { createViesStatusClient, parseCheckStatus } from "../../../src/vat/vies/status.ts";
import { startViesFake } from "../../fakes/vies.ts";
import { VIES_COUNTRIES } from "../../fakes/vies-wire.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";

const fake = fakeForTests(startViesFake);

const TIMEOUT_MS = 5_000;

describe("createViesStatusClient against the fake", () => {
  test("all member states available", async () => {
    const status = await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS);
    expect(status).toEqual({
      ok: true,
      vowAvailable: true,
      countries: VIES_COUNTRIES.map((countryCode) => ({ countryCode, availability: "Available" })),
    });
    expect(fake().calls.status).toBe(1);
    expect(fake().calls.total).toBe(0);
  });

  test("mixed availability and VoW down, values kept as sent", async () => {
    fake().setStatus({
      kind: "json",
      vowAvailable: false,
      countries: { DE: "Unavailable", MT: "Monitoring Disabled" },
    });
    const status = await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS);
    expect(status.ok && status.vowAvailable).toBe(false);
    expect(status.ok && status.countries.filter((c) => c.availability !== "Available")).toEqual([
      { countryCode: "DE", availability: "Unavailable" },
      { countryCode: "MT", availability: "Monitoring Disabled" },
    ]);
  });

  test("actionSucceed:false with HTTP 200 → the VIES error", async () => {
    fake().setStatus({ kind: "actionFailed", error: "SERVICE_UNAVAILABLE" });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "SERVICE_UNAVAILABLE",
    });
  });

  test("actionSucceed:false with HTTP 500 → still the VIES error", async () => {
    fake().setStatus({ kind: "actionFailed", error: "MS_UNAVAILABLE", status: 500 });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "MS_UNAVAILABLE",
    });
  });

  test("HTML 503 → HTTP_503", async () => {
    fake().setStatus({ kind: "html", status: 503 });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "HTTP_503",
    });
  });

  test("a valid-looking body with a non-2xx status is not trusted", async () => {
    fake().setStatus({
      kind: "body",
      status: 502,
      contentType: "application/json",
      body: '{"vow":{"available":true},"countries":[]}',
    });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "HTTP_502",
    });
  });

  test("non-JSON with HTTP 200 → UNPARSEABLE", async () => {
    fake().setStatus({
      kind: "body",
      status: 200,
      contentType: "text/html",
      body: "<html>maintenance</html>",
    });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "UNPARSEABLE",
    });
  });

  test("a hanging endpoint → CLIENT_TIMEOUT", async () => {
    fake().setStatus({ kind: "hang" });
    expect(await createViesStatusClient({ baseUrl: fake().baseUrl }).fetchStatus(150)).toEqual({
      ok: false,
      detail: "CLIENT_TIMEOUT",
    });
  });

  test("connection refused → NETWORK", async () => {
    const stopped = await startViesFake();
    await stopped.stop();
    expect(await createViesStatusClient({ baseUrl: stopped.baseUrl }).fetchStatus(TIMEOUT_MS)).toEqual({
      ok: false,
      detail: "NETWORK",
    });
  });
});

describe("parseCheckStatus", () => {
  test("the contract shape", () => {
    expect(
      parseCheckStatus({
        vow: { available: true },
        countries: [
          { countryCode: "AT", availability: "Available" },
          { countryCode: "DE", availability: "Unavailable" },
          { countryCode: "MT", availability: "Monitoring Disabled" },
        ],
      }),
    ).toEqual({
      ok: true,
      vowAvailable: true,
      countries: [
        { countryCode: "AT", availability: "Available" },
        { countryCode: "DE", availability: "Unavailable" },
        { countryCode: "MT", availability: "Monitoring Disabled" },
      ],
    });
  });

  test("errorWrappers alone mean failure; no error string gives ACTION_FAILED", () => {
    expect(parseCheckStatus({ errorWrappers: [{ error: "MS_MAX_CONCURRENT_REQ" }] })).toEqual({
      ok: false,
      detail: "MS_MAX_CONCURRENT_REQ",
    });
    expect(parseCheckStatus({ actionSucceed: false })).toEqual({ ok: false, detail: "ACTION_FAILED" });
    expect(parseCheckStatus({ actionSucceed: false, errorWrappers: [{ message: "x" }] })).toEqual({
      ok: false,
      detail: "ACTION_FAILED",
    });
  });

  test("malformed country entries are dropped", () => {
    expect(
      parseCheckStatus({
        vow: { available: false },
        countries: [{ countryCode: "AT" }, null, "DE", { countryCode: "BE", availability: "Available" }],
      }),
    ).toEqual({
      ok: true,
      vowAvailable: false,
      countries: [{ countryCode: "BE", availability: "Available" }],
    });
  });

  test("missing vow.available or countries, or not an object → UNPARSEABLE", () => {
    for (const body of [
      undefined,
      null,
      [],
      "x",
      { countries: [] },
      { vow: { available: "yes" }, countries: [] },
      { vow: { available: true } },
    ]) {
      expect(parseCheckStatus(body)).toEqual({ ok: false, detail: "UNPARSEABLE" });
    }
  });
});
