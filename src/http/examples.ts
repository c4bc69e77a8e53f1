/**
 * The bodies the OpenAPI document shows as examples, in one place: real-looking numbers (a
 * Dutch VAT number VIES discloses, Commerzbank's published sample IBAN) answered as this
 * service answers them. Each is typed by its schema, so a field added to a model is a type
 * error here until its example shows it; Redocly checks them against the document's schemas.
 */
import type { Batch, BatchItemsPage } from "../batches/schema.ts";
import type { IbanResult } from "../iban/schema.ts";
import type {
  Monitor,
  MonitorEvent,
  MonitorEventPage,
  MonitorPage,
  MonitorsCreated,
} from "../monitors/schema.ts";
import type { ValidationRecord } from "../validation/records.ts";
import type { VatResult } from "../vat/schema.ts";
import type { StatusResponse } from "../vat/status.ts";
import type { Health, Usage, ValidateResponse } from "./schemas.ts";

const CHECKED_AT = "2026-11-26T09:30:12.000Z";
const RESET_AT = "2026-12-01T00:00:00.000Z";

export const VAT_RESULT: VatResult = {
  input: "NL854265259B01",
  vat_number: "NL854265259B01",
  country_code: "NL",
  country_name: "Netherlands",
  valid: true,
  name: "GITHUB B.V.",
  address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
  source: "vies",
  checked_at: CHECKED_AT,
  consultation_number: "WAPIAAAAZUt4_Bq1",
  error: null,
  cached: false,
  stale: false,
  warning: null,
  match: null,
};

export const IBAN_RESULT: IbanResult = {
  input: "DE89 3704 0044 0532 0130 00",
  valid: true,
  iban: "DE89370400440532013000",
  iban_formatted: "DE89 3704 0044 0532 0130 00",
  country_code: "DE",
  check_digits: "89",
  bban: "370400440532013000",
  bank_code: "37040044",
  branch_code: null,
  account_number: "0532013000",
  sepa: true,
  bank: { name: "Commerzbank", bic: "COBADEFFXXX" },
  national_check: "passed",
  source: "offline",
  cached: false,
  error: null,
  warning: null,
};

/** iban4j's example of a Spanish IBAN whose control digits (its national check) do not hold. */
export const IBAN_RESULT_NATIONAL_CHECK_FAILED: IbanResult = {
  input: "ES42 2100 0418 4502 0006 1332",
  valid: true,
  iban: "ES4221000418450200061332",
  iban_formatted: "ES42 2100 0418 4502 0006 1332",
  country_code: "ES",
  check_digits: "42",
  bban: "21000418450200061332",
  bank_code: "2100",
  branch_code: "0418",
  account_number: "0200061332",
  sepa: true,
  bank: { name: "CAIXABANK, S.A.", bic: "CAIXESBB" },
  national_check: "failed",
  source: "offline",
  cached: false,
  error: null,
  warning: {
    code: "national_check_failed",
    message: "the control digits (DC) do not match the bank, branch and account number",
  },
};

const USAGE_BLOCK: ValidateResponse["usage"] = {
  plan: "basic",
  used: 412,
  limit: 2000,
  remaining: 1588,
  reset_at: RESET_AT,
};

export const VALIDATE_RESPONSES: Record<string, { summary: string; value: ValidateResponse }> = {
  vat: {
    summary: "A VAT number, registered",
    value: {
      request_id: "7d3f9a52-1c4e-4b8a-9f61-2e5d8c0b7a14",
      vat: VAT_RESULT,
      billable: true,
      usage: USAGE_BLOCK,
    },
  },
  match: {
    summary: "A VAT number with the name and city you were given, compared",
    value: {
      request_id: "0b6e2f8d-5a19-4c37-b2d4-8e1f6a9c3d50",
      vat: {
        ...VAT_RESULT,
        match: {
          overall: "match",
          name: { result: "match", by: "local" },
          city: { result: "match", by: "local" },
        },
      },
      billable: true,
      usage: USAGE_BLOCK,
    },
  },
  iban: {
    summary: "An IBAN, valid, with its bank",
    value: {
      request_id: "c4a1e7b3-9d28-4f6c-a5e0-3b7d9f2c8e61",
      iban: IBAN_RESULT,
      billable: true,
      usage: { ...USAGE_BLOCK, used: 413, remaining: 1587 },
    },
  },
  national_check: {
    summary: "An IBAN, valid, whose national check digits do not hold: a warning",
    value: {
      request_id: "9a2c5e71-4b3d-4f08-8c6a-1d7e3b9f0a52",
      iban: IBAN_RESULT_NATIONAL_CHECK_FAILED,
      billable: true,
      usage: { ...USAGE_BLOCK, used: 414, remaining: 1586 },
    },
  },
  swiss: {
    summary: "A Swiss VAT number (UID), checked with the UID register",
    value: {
      request_id: "3c8d1f6a-7e24-4b95-a0d3-6f2b9e4c1a87",
      vat: {
        ...VAT_RESULT,
        input: "CHE-101.329.561 MWST",
        vat_number: "CHE101329561",
        country_code: "CH",
        country_name: "Switzerland",
        name: "UBS AG",
        address: "Bahnhofstrasse 45\n8001 Zürich",
        source: "ch_uid",
        consultation_number: null,
      },
      billable: true,
      usage: USAGE_BLOCK,
    },
  },
  norwegian: {
    summary: "A Norwegian VAT number, checked with the Register of Legal Entities",
    value: {
      request_id: "e1a7c3b9-2d5f-4e80-9b16-4c8f0a3d7e25",
      vat: {
        ...VAT_RESULT,
        input: "NO 923 609 016 MVA",
        vat_number: "NO923609016",
        country_code: "NO",
        country_name: "Norway",
        name: "EQUINOR ASA",
        address: "Forusbeen 50\n4035 STAVANGER",
        source: "no_brreg",
        consultation_number: null,
      },
      billable: true,
      usage: USAGE_BLOCK,
    },
  },
  cached: {
    summary: "A VAT number answered from the cache: not billed",
    value: {
      request_id: "5e9b3c7a-2f1d-4a86-b0c4-9d6e1f8a2b37",
      vat: { ...VAT_RESULT, cached: true },
      billable: false,
      usage: USAGE_BLOCK,
    },
  },
};

export const IBAN_BUILD_REQUESTS = {
  de: {
    summary: "A German bank code (BLZ) and account number",
    value: { country_code: "DE", bank_code: "37040044", account_number: "532013000" },
  },
  es: {
    summary: "A Spanish CCC, bank and branch in the one string",
    value: { country_code: "ES", account_number: "2100 0418 45 0200051332" },
  },
  cz: {
    summary: "A Czech account number as printed",
    value: { country_code: "CZ", account_number: "19-2000145399/0800" },
  },
  gb: {
    summary: "A UK sort code and account number, with the bank's code",
    value: { country_code: "GB", bank_code: "NWBK", branch_code: "60-16-13", account_number: "31926819" },
  },
};

export const IBAN_BUILD_RESPONSES: Record<string, { summary: string; value: ValidateResponse }> = {
  de: {
    summary: "The IBAN of a German account, validated and billed",
    value: {
      request_id: "e2b7c1d9-6a4f-4e3b-8d05-7f1a9c2e4b68",
      iban: { ...IBAN_RESULT, input: IBAN_RESULT.iban as string, iban_formatted: IBAN_RESULT.iban_formatted },
      billable: true,
      usage: { ...USAGE_BLOCK, used: 415, remaining: 1585 },
    },
  },
};

export const VALIDATION_RECORD: ValidationRecord = {
  request_id: "7d3f9a52-1c4e-4b8a-9f61-2e5d8c0b7a14",
  key_id: "key_fo3kblowfgzd8d1n",
  vat_number: "NL854265259B01",
  valid: true,
  name: "GITHUB B.V.",
  address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
  checked_at: CHECKED_AT,
  consultation_number: "WAPIAAAAZUt4_Bq1",
  source: "vies",
  match: {
    sent: { name: "GitHub BV", city: "Amsterdam" },
    result: {
      overall: "match",
      name: { result: "match", by: "local" },
      city: { result: "match", by: "local" },
    },
  },
};

export const USAGE: Usage = {
  plan: "basic",
  plan_name: "Basic",
  price_usd_per_month: 19,
  monthly_quota: 2000,
  used: 412,
  remaining: 1588,
  period_start: "2026-11-01T00:00:00.000Z",
  reset_at: RESET_AT,
  rate_limit_per_minute: 60,
  requests_this_month: 1297,
  key_id: "key_fo3kblowfgzd8d1n",
};

export const VIES_STATUS: StatusResponse = {
  available: true,
  checked_at: CHECKED_AT,
  cached: true,
  countries: [
    { country_code: "DE", vies_code: "DE", availability: "available", raw: "Available" },
    { country_code: "GR", vies_code: "EL", availability: "unavailable", raw: "Unavailable" },
    { country_code: "NL", vies_code: "NL", availability: "available", raw: "Available" },
  ],
  registers: [
    { country_code: "GB", source: "uk_authority", availability: "disabled", checked_at: null },
    {
      country_code: "CH",
      source: "ch_uid",
      availability: "available",
      checked_at: "2026-11-26T09:28:41.000Z",
    },
    { country_code: "NO", source: "no_brreg", availability: "unknown", checked_at: null },
  ],
};

export const HEALTH: Health = {
  status: "ok",
  registry_version: "swift-r100+schwifty-23462330 (bank data 2026-07-23)",
};

const BATCH_ID = "bat_5f0c6e1d2a9b8c7d6e5f4a3b";

export const BATCH_QUEUED: Batch = {
  id: BATCH_ID,
  status: "queued",
  created_at: "2026-11-26T09:30:00.000Z",
  completed_at: null,
  counts: { total: 2, done: 0, valid: 0, invalid: 0, failed: 0, billed: 0 },
  webhook: {
    url: "https://erp.example.com/hooks/vat",
    last_delivery_at: null,
    last_status: null,
    attempts: 0,
  },
};

export const BATCH_COMPLETED: Batch = {
  ...BATCH_QUEUED,
  status: "completed",
  completed_at: "2026-11-26T09:30:02.000Z",
  counts: { total: 2, done: 2, valid: 2, invalid: 0, failed: 0, billed: 2 },
  webhook: {
    url: "https://erp.example.com/hooks/vat",
    last_delivery_at: "2026-11-26T09:30:02.000Z",
    last_status: 200,
    attempts: 1,
  },
};

export const BATCH_CANCELLED: Batch = {
  ...BATCH_QUEUED,
  status: "cancelled",
  completed_at: "2026-11-26T09:30:01.000Z",
  counts: { total: 2, done: 1, valid: 1, invalid: 0, failed: 0, billed: 1 },
};

export const BATCH_REQUEST = {
  items: [
    { vat: "NL854265259B01", reference: "cust-1001", match: { name: "GitHub BV" } },
    { iban: "DE89 3704 0044 0532 0130 00", reference: "cust-1002" },
  ],
  webhook_url: "https://erp.example.com/hooks/vat",
};

export const BATCH_CSV =
  "vat,iban,reference\nNL854265259B01,,cust-1001\n,DE89 3704 0044 0532 0130 00,cust-1002\n";

export const BATCH_ITEMS_PAGE: BatchItemsPage = {
  items: [
    {
      index: 0,
      reference: "cust-1001",
      status: "done",
      vat: { ...VAT_RESULT, input: "NL854265259B01" },
      billable: true,
      error: null,
    },
    { index: 1, reference: "cust-1002", status: "done", iban: IBAN_RESULT, billable: true, error: null },
  ],
  next_cursor: null,
};

const MONITOR_ID = "mon_4b1e0c9f2d7a6e5b3c8d1f0a";

/** A number just watched: its first check is due at once. */
export const MONITOR_NEW: Monitor = {
  id: MONITOR_ID,
  vat_number: "NL854265259B01",
  reference: "cust-1001",
  interval_days: 30,
  status: "active",
  created_at: "2026-11-26T09:30:00.000Z",
  last_checked_at: null,
  next_check_at: "2026-11-26T09:30:00.000Z",
  last_result: null,
  webhook: {
    url: "https://erp.example.com/hooks/vat",
    last_delivery_at: null,
    last_status: null,
    attempts: 0,
  },
};

/** The same number once checked: its next round falls somewhere in the interval. */
export const MONITOR: Monitor = {
  ...MONITOR_NEW,
  last_checked_at: CHECKED_AT,
  next_check_at: "2026-12-13T17:02:44.000Z",
  last_result: VAT_RESULT,
};

export const MONITOR_REQUEST = {
  vat: "NL854265259B01",
  reference: "cust-1001",
  match: { name: "GitHub BV", city: "Amsterdam" },
  webhook_url: "https://erp.example.com/hooks/vat",
};

export const MONITOR_LIST_REQUEST = {
  items: [
    { vat: "NL854265259B01", reference: "cust-1001" },
    { vat: "LU20260743", reference: "cust-1002", interval_days: 7 },
  ],
  webhook_url: "https://erp.example.com/hooks/vat",
};

export const MONITOR_CSV = "vat,reference,interval_days\nNL854265259B01,cust-1001,\nLU20260743,cust-1002,7\n";

export const MONITORS_CREATED: MonitorsCreated = {
  monitors: [
    MONITOR_NEW,
    {
      ...MONITOR_NEW,
      id: "mon_9a8b7c6d5e4f30211203f4e5",
      vat_number: "LU20260743",
      reference: "cust-1002",
      interval_days: 7,
    },
  ],
  created: 2,
};

export const MONITOR_PAGE: MonitorPage = { monitors: [MONITOR], next_cursor: "1" };

/** The registration of a watched number lapsed between two checks. */
export const MONITOR_EVENT: MonitorEvent = {
  type: "vat.registration_changed",
  data: {
    monitor: {
      ...MONITOR,
      last_checked_at: "2026-12-13T17:02:45.000Z",
      next_check_at: "2027-01-12T17:02:44.000Z",
    },
    previous: VAT_RESULT,
    current: {
      ...VAT_RESULT,
      valid: false,
      name: null,
      address: null,
      checked_at: "2026-12-13T17:02:45.000Z",
      consultation_number: "WAPIAAAAZVx9_Cr2",
    },
  },
};

export const MONITOR_EVENT_PAGE: MonitorEventPage = {
  events: [{ id: "evt_7c2d9e4f1a6b3c8d0e5f2a7b", created_at: "2026-12-13T17:02:45.000Z", ...MONITOR_EVENT }],
  next_cursor: null,
};
