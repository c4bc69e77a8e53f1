import { describe, expect, test } from "bun:test";
import { checkVatFormat, VAT_PREFIXES, type VatPrefix } from "../../../src/vat/format/check-vat-format.ts";

/** A valid input maps to its normalized VAT number; an invalid one to "structure" or "check". */
type Expected = string;

/** What the check made of an input: the normalized number, or which rule rejected it. */
function outcome(input: string): Expected {
  const result = checkVatFormat(input);
  if (result.ok) return result.vatNumber;
  if (result.code !== "invalid_format") return result.code;
  return result.message.includes("check digit") ? "check" : "structure";
}

const examples: Record<VatPrefix, { iso: string; name: string; cases: [string, Expected][] }> = {
  AT: {
    iso: "AT",
    name: "Austria",
    cases: [
      ["ATU13585627", "ATU13585627"],
      ["AT U 142 43 102", "ATU14243102"],
      ["ATU13585626", "check"],
      ["AT13585627", "structure"],
      ["ATU1358562", "structure"],
    ],
  },
  BE: {
    iso: "BE",
    name: "Belgium",
    cases: [
      ["BE0403019261", "BE0403019261"],
      ["BE 0202.239.951", "BE0202239951"],
      ["BE1602602623", "BE1602602623"],
      ["BE 403 019 261", "BE0403019261"],
      ["BE0403019262", "check"],
      ["BE2403019261", "structure"],
      ["BE0000000000", "structure"],
      ["BE04030192611", "structure"],
    ],
  },
  BG: {
    iso: "BG",
    name: "Bulgaria",
    cases: [
      ["BG175074752", "BG175074752"],
      ["BG204514061", "BG204514061"],
      ["BG7523169263", "BG7523169263"],
      ["BG175074753", "check"],
      ["BG17507475", "structure"],
      ["BG12345678901", "structure"],
    ],
  },
  CY: {
    iso: "CY",
    name: "Cyprus",
    cases: [
      ["CY10259033P", "CY10259033P"],
      ["cy-10246672-x", "CY10246672X"],
      ["CY10259033Z", "check"],
      ["CY12000000A", "structure"],
      ["CY102590331", "structure"],
    ],
  },
  CZ: {
    iso: "CZ",
    name: "Czechia",
    cases: [
      ["CZ25123891", "CZ25123891"],
      ["CZ27082440", "CZ27082440"],
      ["CZ682127228", "CZ682127228"],
      ["CZ 640229/4448", "CZ6402294448"],
      ["CZ25123890", "check"],
      ["CZ95123891", "structure"],
      ["CZ1234567", "structure"],
    ],
  },
  DE: {
    iso: "DE",
    name: "Germany",
    cases: [
      ["DE136695976", "DE136695976"],
      ["de 113.866.163", "DE113866163"],
      ["DE136695978", "check"],
      ["DE036695976", "structure"],
      ["DE13669597", "structure"],
    ],
  },
  DK: {
    iso: "DK",
    name: "Denmark",
    cases: [
      ["DK13585628", "DK13585628"],
      ["DK 13 58 56 28", "DK13585628"],
      ["DK13585627", "check"],
      ["DK1358562", "structure"],
    ],
  },
  EE: {
    iso: "EE",
    name: "Estonia",
    cases: [
      ["EE100931558", "EE100931558"],
      ["EE100523487", "EE100523487"],
      ["EE100931559", "check"],
      ["EE10093155", "structure"],
    ],
  },
  EL: {
    iso: "GR",
    name: "Greece",
    cases: [
      ["EL094259216", "EL094259216"],
      ["EL94259216", "EL094259216"],
      ["GR094259216", "EL094259216"],
      ["EL094259217", "check"],
      ["EL0942592161", "structure"],
      ["EL9425921", "structure"],
    ],
  },
  ES: {
    iso: "ES",
    name: "Spain",
    cases: [
      ["ES54362315K", "ES54362315K"],
      ["ESX5910266W", "ESX5910266W"],
      ["ESK0001230B", "ESK0001230B"],
      ["ESA13585625", "ESA13585625"],
      ["ESP65474207", "ESP65474207"],
      ["ESQ0818001J", "ESQ0818001J"],
      ["ES54362315Z", "check"],
      ["ESX5910266A", "check"],
      ["ESA13585626", "check"],
      ["ESI1234567A", "structure"],
      ["ES543623151", "structure"],
    ],
  },
  FI: {
    iso: "FI",
    name: "Finland",
    cases: [
      ["FI20774740", "FI20774740"],
      ["FI02459042", "FI02459042"],
      ["FI20774741", "check"],
      ["FI2077474", "structure"],
    ],
  },
  FR: {
    iso: "FR",
    name: "France",
    cases: [
      ["FR40303265045", "FR40303265045"],
      ["fr 40 303 265 045", "FR40303265045"],
      ["FR45497709824", "FR45497709824"],
      ["FRK7399859412", "FRK7399859412"],
      ["FR84323140391", "check"],
      ["FRIO334175221", "structure"],
      ["FR4030326504", "structure"],
    ],
  },
  HR: {
    iso: "HR",
    name: "Croatia",
    cases: [
      ["HR33392005961", "HR33392005961"],
      ["HR38192148118", "HR38192148118"],
      ["HR33392005962", "check"],
      ["HR3339200596", "structure"],
    ],
  },
  HU: {
    iso: "HU",
    name: "Hungary",
    cases: [
      ["HU12892312", "HU12892312"],
      ["HU10672101", "HU10672101"],
      ["HU12892313", "check"],
      ["HU128923121", "structure"],
    ],
  },
  IE: {
    iso: "IE",
    name: "Ireland",
    cases: [
      ["IE6433435F", "IE6433435F"],
      ["IE6433435FW", "IE6433435FW"],
      ["IE3706224MH", "IE3706224MH"],
      ["IE8D79739I", "IE8D79739I"],
      ["IE6433435E", "check"],
      ["IE3706224MA", "check"],
      ["IE6433435X", "structure"],
      ["IE643343F", "structure"],
    ],
  },
  IT: {
    iso: "IT",
    name: "Italy",
    cases: [
      ["IT00743110157", "IT00743110157"],
      ["IT01404480202", "IT01404480202"],
      ["IT00743110158", "check"],
      ["IT00000001234", "structure"],
      ["IT0074311015", "structure"],
    ],
  },
  LT: {
    iso: "LT",
    name: "Lithuania",
    cases: [
      ["LT119511515", "LT119511515"],
      ["LT100001919017", "LT100001919017"],
      ["LT119511516", "check"],
      ["LT119511525", "structure"],
    ],
  },
  LU: {
    iso: "LU",
    name: "Luxembourg",
    cases: [
      ["LU15027442", "LU15027442"],
      ["LU26166606", "LU26166606"],
      ["LU15027443", "check"],
      ["LU1502744", "structure"],
    ],
  },
  LV: {
    iso: "LV",
    name: "Latvia",
    cases: [
      ["LV40003521600", "LV40003521600"],
      ["LV12016718008", "LV12016718008"],
      ["LV40003521601", "check"],
      ["LV4000352160", "structure"],
    ],
  },
  MT: {
    iso: "MT",
    name: "Malta",
    cases: [
      ["MT11679112", "MT11679112"],
      ["MT10396417", "MT10396417"],
      ["MT11679113", "check"],
      ["MT01679112", "structure"],
    ],
  },
  NL: {
    iso: "NL",
    name: "Netherlands",
    cases: [
      ["NL004495445B01", "NL004495445B01"],
      ["nl 0044.95445.b01", "NL004495445B01"],
      ["NL4495445B01", "NL004495445B01"],
      ["NL001266526B03", "NL001266526B03"],
      ["NL001439542B97", "NL001439542B97"],
      ["NL123456789B01", "check"],
      ["NL004495445B00", "structure"],
      ["NL000000000B01", "structure"],
      ["NL004495445A01", "structure"],
    ],
  },
  PL: {
    iso: "PL",
    name: "Poland",
    cases: [
      ["PL8567346215", "PL8567346215"],
      ["PL 521-135-51-16", "PL5211355116"],
      ["PL8567346216", "check"],
      ["PL856734621", "structure"],
    ],
  },
  PT: {
    iso: "PT",
    name: "Portugal",
    cases: [
      ["PT501964843", "PT501964843"],
      ["PT500019720", "PT500019720"],
      ["PT501964842", "check"],
      ["PT50196484", "structure"],
    ],
  },
  RO: {
    iso: "RO",
    name: "Romania",
    cases: [
      ["RO18547290", "RO18547290"],
      ["RO1822964", "RO1822964"],
      ["RO19", "RO19"],
      ["RO18547291", "check"],
      ["RO018547290", "structure"],
      ["RO1", "structure"],
      ["RO12345678901", "structure"],
    ],
  },
  SE: {
    iso: "SE",
    name: "Sweden",
    cases: [
      ["SE123456789701", "SE123456789701"],
      ["SE556200077701", "SE556200077701"],
      ["SE123456789601", "check"],
      ["SE123456789702", "structure"],
    ],
  },
  SI: {
    iso: "SI",
    name: "Slovenia",
    cases: [
      ["SI50223054", "SI50223054"],
      ["SI26808498", "SI26808498"],
      ["SI50223055", "check"],
      ["SI05022305", "structure"],
    ],
  },
  SK: {
    iso: "SK",
    name: "Slovakia",
    cases: [
      ["SK2022749619", "SK2022749619"],
      ["SK1078449064", "SK1078449064"],
      ["SK2022749618", "check"],
      ["SK0022749619", "structure"],
    ],
  },
  XI: {
    iso: "GB",
    name: "United Kingdom (Northern Ireland)",
    cases: [
      ["XI980780684", "XI980780684"],
      ["xi 100 0000 34", "XI100000034"],
      ["XIGD001", "XIGD001"],
      ["XI802311781", "check"],
      ["XI000000000", "structure"],
    ],
  },
  GB: {
    iso: "GB",
    name: "United Kingdom",
    cases: [
      ["GB980780684", "GB980780684"],
      ["GB242338087388", "GB242338087388"],
      ["GB003232345", "GB003232345"],
      ["GBGD001", "GBGD001"],
      ["GBHA500", "GBHA500"],
      ["GBHA888856782", "GBHA888856782"],
      ["GB802311781", "check"],
      ["GB000000140", "check"],
      ["GBGD500", "structure"],
      ["GBHA499", "structure"],
      ["GB000000000", "structure"],
      ["GB12345678", "structure"],
    ],
  },
  // Check digits: vat-beyond-vies.md §3.1 (python-stdnum's doctests, the UID register's own example).
  CH: {
    iso: "CH",
    name: "Switzerland",
    cases: [
      ["CHE-116.281.710", "CHE116281710"],
      ["CHE116281710", "CHE116281710"],
      ["CHE-116.281.710 MWST", "CHE116281710"],
      ["CHE 116 281 710 TVA", "CHE116281710"],
      ["che-107.787.577 iva", "CHE107787577"],
      ["CHE100155212VAT", "CHE100155212"],
      ["CHE-100.155.213", "check"],
      ["CHE116281838", "check"],
      ["CH116281710", "structure"],
      ["CHE11628171", "structure"],
      ["CHE-116.281.710 TPV", "structure"],
      ["CHE-116.281.710 MWST MWST", "structure"],
    ],
  },
  // Check digits: vat-beyond-vies.md §3.2 (python-stdnum no/orgnr.py, Brønnøysund records).
  NO: {
    iso: "NO",
    name: "Norway",
    cases: [
      ["NO974760673MVA", "NO974760673"],
      ["NO 974 760 673 MVA", "NO974760673"],
      ["NO974760673", "NO974760673"],
      ["no 988 077 917 mva", "NO988077917"],
      ["NO991825827", "NO991825827"],
      ["NO995525828MVA", "NO995525828"],
      ["NO988077918", "check"],
      ["NO974760674MVA", "check"],
      ["NO97476067", "structure"],
      ["NO9747606731", "structure"],
      ["NOMVA", "structure"],
    ],
  },
};

test("the covered prefixes are exactly the spec's, then CH and NO, each with examples here", () => {
  const coverage =
    "AT BE BG CY CZ DE DK EE EL ES FI FR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK XI GB CH NO".split(" ");
  expect<string[]>([...VAT_PREFIXES]).toEqual(coverage);
  expect(Object.keys(examples)).toEqual(coverage);
});

for (const [prefix, { iso, name, cases }] of Object.entries(examples)) {
  describe(prefix, () => {
    test("accepts valid and rejects invalid examples", () => {
      expect(cases.map(([input]) => [input, outcome(input)])).toEqual(cases);
    });

    test(`reports ${iso} / ${name}, accepted or rejected`, () => {
      for (const [input] of cases) {
        const result = checkVatFormat(input);
        expect([result.prefix, result.countryCode, result.countryName]).toEqual([prefix, iso, name]);
      }
    });

    test("has both accepted and rejected examples", () => {
      const kinds = new Set(cases.map(([, expected]) => (expected.startsWith(prefix) ? "valid" : expected)));
      expect(kinds.has("valid") && (kinds.has("check") || kinds.has("structure"))).toBe(true);
    });
  });
}

describe("VIES-valid numbers that other validators wrongly rejected (vat-formats.md, pitfalls)", () => {
  const reported = [
    "NL001266526B03", // django-internationalflavor#15: btw-id, fails the elfproef
    "NL001439542B97", // DragonBe/vies#136: btw-id
    "BE1602602623", // BE numbers starting with 1 (python-stdnum#488)
    "LV12016718008", // DragonBe/vies#146: natural person
    "CZ682127228", // python-stdnum#51
    "CZ27082440", // DragonBe/vies#38
    "ESX5910266W", // DragonBe/vies#41: NIE
    "IE3706224MH", // vies-dotnet#38: 2013 form
    "BG204514061", // DragonBe/vies#34
    "FR45497709824", // DragonBe/vies#136
    "LU26166606", // form-validation#86
  ];
  for (const number of reported) {
    test(number, () => expect(outcome(number)).toBe(number));
  }
});
