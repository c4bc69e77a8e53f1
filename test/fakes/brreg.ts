/**
 * A local Enhetsregisteret (Brønnøysundregistrene's open data API) over real HTTP:
 * `GET /enhetsregisteret/api/enheter/{orgnr}` with the answers the API gives (R30, R31): a unit,
 * a deleted unit reduced to its number, name, form and `slettedato`, 404 for a unit that does
 * not exist, 410 for one removed, 400 for a number that is not nine digits; and outage shapes.
 */
import type { IncomingMessage } from "node:http";
import {
  type EndpointControls,
  fakeEndpoint,
  type OutageBehaviour,
  performOutage,
  type Reply,
  readBody,
  startRawServer,
} from "./raw-http.ts";

export const BRREG_UNIT_PATH = "/enhetsregisteret/api/enheter/";

/** A unit as the register holds it; `deleted` reduces it to what the API still shows. */
export type BrregUnit = {
  navn: string;
  organisasjonsform: { kode: string; beskrivelse: string };
  registrertIMvaregisteret: boolean;
  forretningsadresse?: {
    adresse: string[];
    postnummer: string;
    poststed: string;
    land?: string;
    landkode?: string;
  };
  /** Deleted on this date (`slettedato`). */
  deleted?: string;
  /** Removed (410): only its number and `slettedato` are shown. */
  removed?: string;
};

export type BrregBehaviour =
  /** Any status, with a body (empty by default). */
  { kind: "status"; status: number; body?: string; contentType?: string } | OutageBehaviour;

export type BrregCall = { orgnr: string; accept: string | null };

export type BrregFake = EndpointControls<BrregBehaviour, BrregCall> & {
  baseUrl: string;
  addUnit(orgnr: string, unit: BrregUnit): void;
  reset(): void;
  stop(): Promise<void>;
};

const AS = { kode: "AS", beskrivelse: "Aksjeselskap" };

/** Units in the shapes of the captures the reference cites (R31), with public names and addresses. */
export const DEFAULT_BRREG_UNITS: Record<string, BrregUnit> = {
  "923609016": {
    navn: "EQUINOR ASA",
    organisasjonsform: { kode: "ASA", beskrivelse: "Allmennaksjeselskap" },
    registrertIMvaregisteret: true,
    forretningsadresse: {
      adresse: ["Forusbeen 50"],
      postnummer: "4035",
      poststed: "STAVANGER",
      land: "Norge",
      landkode: "NO",
    },
  },
  "974760673": {
    navn: "REGISTERENHETEN I BRØNNØYSUND",
    organisasjonsform: { kode: "ORGL", beskrivelse: "Organisasjonsledd" },
    registrertIMvaregisteret: true,
    forretningsadresse: {
      adresse: ["Havnegata 48"],
      postnummer: "8900",
      poststed: "BRØNNØYSUND",
      land: "Norge",
      landkode: "NO",
    },
  },
  "988077917": {
    navn: "FJELLSTUA DRIFT AS",
    organisasjonsform: AS,
    registrertIMvaregisteret: false,
    forretningsadresse: {
      adresse: ["Fjellveien 1"],
      postnummer: "2680",
      poststed: "VÅGÅ",
      land: "Norge",
      landkode: "NO",
    },
  },
  "821227062": {
    navn: "AVVIKLET HANDEL AS",
    organisasjonsform: AS,
    registrertIMvaregisteret: true,
    deleted: "2024-11-26",
  },
  "433695968": {
    navn: "FJERNET AS",
    organisasjonsform: AS,
    registrertIMvaregisteret: false,
    removed: "2025-05-24",
  },
};

const JSON_TYPE = "application/json";

function json(status: number, value: unknown): Reply {
  return { status, headers: { "Content-Type": JSON_TYPE }, body: JSON.stringify(value) };
}

const links = (orgnr: string) => ({
  self: { href: `https://data.brreg.no/enhetsregisteret/api/enheter/${orgnr}` },
});

/** The API's answer for a unit. */
function unitReply(orgnr: string, unit: BrregUnit): Reply {
  if (unit.removed !== undefined)
    return json(410, { organisasjonsnummer: orgnr, slettedato: unit.removed, _links: links(orgnr) });
  if (unit.deleted !== undefined) {
    return json(200, {
      organisasjonsnummer: orgnr,
      navn: unit.navn,
      organisasjonsform: unit.organisasjonsform,
      slettedato: unit.deleted,
      _links: links(orgnr),
    });
  }
  return json(200, {
    organisasjonsnummer: orgnr,
    navn: unit.navn,
    organisasjonsform: unit.organisasjonsform,
    ...(unit.forretningsadresse && {
      forretningsadresse: { ...unit.forretningsadresse, kommune: "", kommunenummer: "" },
    }),
    registrertIMvaregisteret: unit.registrertIMvaregisteret,
    registrertIForetaksregisteret: true,
    konkurs: false,
    underAvvikling: false,
    underTvangsavviklingEllerTvangsopplosning: false,
    maalform: "Bokmål",
    _links: links(orgnr),
  });
}

const springError = (status: number, error: string, path: string) =>
  json(status, { timestamp: new Date().toISOString(), status, error, path });

export async function startBrregFake(): Promise<BrregFake> {
  const units = new Map<string, BrregUnit>(Object.entries(DEFAULT_BRREG_UNITS));
  const endpoint = fakeEndpoint<BrregBehaviour, BrregCall>();

  const perform = (behaviour: BrregBehaviour, request: IncomingMessage): Reply | null =>
    behaviour.kind === "status"
      ? {
          status: behaviour.status,
          headers: { "Content-Type": behaviour.contentType ?? JSON_TYPE },
          body: behaviour.body ?? "",
        }
      : performOutage(server, behaviour, request);

  const server = await startRawServer(async (request) => {
    await readBody(request);
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    if (!path.startsWith(BRREG_UNIT_PATH) || request.method !== "GET")
      return springError(404, "Not Found", path);
    const orgnr = decodeURIComponent(path.slice(BRREG_UNIT_PATH.length));
    return endpoint.answer(
      { orgnr, accept: request.headers.accept ?? null },
      (behaviour) => perform(behaviour, request),
      () => {
        if (!/^\d{9}$/.test(orgnr)) return springError(400, "Bad Request", path);
        const unit = units.get(orgnr);
        return unit === undefined ? springError(404, "Not Found", path) : unitReply(orgnr, unit);
      },
    );
  });

  return {
    ...endpoint.controls,
    baseUrl: server.baseUrl,
    addUnit(orgnr, unit) {
      units.set(orgnr, unit);
    },
    reset() {
      units.clear();
      for (const [orgnr, unit] of Object.entries(DEFAULT_BRREG_UNITS)) units.set(orgnr, unit);
      endpoint.clear();
      server.endParked();
    },
    stop: () => server.stop(),
  };
}
