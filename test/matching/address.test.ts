import { describe, expect, test } from "bun:test";
import { cityName, postcodeKey, splitAddress } from "../../src/matching/address.ts";

/** Registered addresses as VIES disclosed them, with where each was recorded. */
const RECORDED: [string, string, string, ReturnType<typeof splitAddress>][] = [
  // shared/docs/vies-protocol.md §3 (viex recording): starts and ends with a line break.
  [
    "NL",
    "VIES recording",
    "\nVIJZELSTRAAT 00068\n1017HL AMSTERDAM\n",
    { street: "VIJZELSTRAAT 00068", postcode: "1017HL", city: "AMSTERDAM" },
  ],
  [
    "BE",
    "ViesSharp README",
    "Auguste Reyerslaan 52\n1030 Schaarbeek",
    { street: "Auguste Reyerslaan 52", postcode: "1030", city: "Schaarbeek" },
  ],
  // One line, comma-separated, no postcode: the last part is the town.
  [
    "IE",
    "valvat live test",
    "3RD FLOOR, GORDON HOUSE, BARROW STREET, DUBLIN 4",
    { street: "3RD FLOOR, GORDON HOUSE, BARROW STREET", postcode: null, city: "DUBLIN 4" },
  ],
  [
    "LU",
    "vies-dotnet fixture",
    "38, AVENUE JOHN F. KENNEDY\nL-1855  LUXEMBOURG",
    { street: "38, AVENUE JOHN F. KENNEDY", postcode: "1855", city: "LUXEMBOURG" },
  ],
  [
    "LU",
    "vies-dotnet fixture, one line",
    "38, AVENUE JOHN F. KENNEDY L-1855  LUXEMBOURG",
    { street: "38, AVENUE JOHN F. KENNEDY", postcode: "1855", city: "LUXEMBOURG" },
  ],
  [
    "PL",
    "GET /ms capture",
    "CHEMIKÓW 7\n09-411 PŁOCK",
    { street: "CHEMIKÓW 7", postcode: "09-411", city: "PŁOCK" },
  ],
  [
    "FR",
    "annuaire-entreprises mock",
    "17 BD HAUSSMANN\n75009 PARIS",
    { street: "17 BD HAUSSMANN", postcode: "75009", city: "PARIS" },
  ],
  // The province code follows the town.
  [
    "IT",
    "vatchecker README",
    "VIA NAZIONALE 91 \n00184 ROMA RM\n",
    { street: "VIA NAZIONALE 91", postcode: "00184", city: "ROMA" },
  ],
  [
    "PT",
    "a Python client's README",
    "LG DO PACO\nBRAGA\n4700-320 BRAGA",
    { street: "LG DO PACO, BRAGA", postcode: "4700-320", city: "BRAGA" },
  ],
  [
    "AT",
    "Nager test",
    "Ebendorferstraße 2\nAT-1010 Wien",
    { street: "Ebendorferstraße 2", postcode: "1010", city: "Wien" },
  ],
  [
    "CZ",
    "IdSign fixture",
    "Duhová 1444/2\nPRAHA 4 - MICHLE\n140 00  PRAHA 4",
    { street: "Duhová 1444/2, PRAHA 4 - MICHLE", postcode: "140 00", city: "PRAHA 4" },
  ],
];

describe("splitting a registered address by its country's conventions", () => {
  for (const [country, source, address, parts] of RECORDED) {
    test(`${country} (${source})`, () => {
      expect(splitAddress(address, country)).toEqual(parts);
    });
  }

  test("Romania: county and municipality lead, then the street (ANAF's form)", () => {
    expect(
      splitAddress(
        "MUNICIPIUL BUCUREŞTI, SECTOR 3, STR. PĂDUREA CRAIULUI, NR.1, BL.B2, SC.1, ET.6, AP.28",
        "RO",
      ),
    ).toEqual({
      street: "STR. PĂDUREA CRAIULUI, NR.1, BL.B2, SC.1, ET.6, AP.28",
      postcode: null,
      city: "BUCUREŞTI",
    });
    expect(splitAddress("JUD. CLUJ, MUN. CLUJ-NAPOCA, STR. MEMORANDUMULUI, NR. 28", "RO")).toEqual({
      street: "STR. MEMORANDUMULUI, NR. 28",
      postcode: null,
      city: "CLUJ-NAPOCA",
    });
  });

  test("the town before its postcode on the line (SK), a country line left out", () => {
    expect(splitAddress("Mlynské nivy 44/a\nBratislava 82109\nSlovensko", "SK")).toEqual({
      street: "Mlynské nivy 44/a",
      postcode: "82109",
      city: "Bratislava",
    });
  });

  test("an Irish Eircode after the town: the town is the part before it", () => {
    expect(splitAddress("1 Grand Canal Square, Dublin 2, D02 P820", "IE")).toEqual({
      street: "1 Grand Canal Square",
      postcode: "D02 P820",
      city: "Dublin 2",
    });
  });

  test("what cannot be told apart is null", () => {
    expect(splitAddress("   \n  ", "NL")).toEqual({ street: null, postcode: null, city: null });
    expect(splitAddress("SOMEWHERE 12", "NL")).toEqual({
      street: "SOMEWHERE 12",
      postcode: null,
      city: null,
    });
    expect(splitAddress("12 Main Street\n4000 Liège", "XX")).toEqual({
      street: "12 Main Street",
      postcode: null,
      city: "4000 Liège",
    });
  });
});

describe("postcodes and towns as written by callers", () => {
  test("a postcode is its letters and digits, without the country prefix", () => {
    expect(postcodeKey("L-1855", "LU")).toBe("1855");
    expect(postcodeKey("1017 hl", "NL")).toBe("1017HL");
    expect(postcodeKey("AT-1010", "AT")).toBe("1010");
    expect(postcodeKey("A 1010", "AT")).toBe("1010");
    expect(postcodeKey("140 00", "CZ")).toBe("14000");
    expect(postcodeKey("D02 P820", "IE")).toBe("D02P820");
  });

  test("a town without province codes, CEDEX routing or locality markers", () => {
    expect(cityName("ROMA RM", "IT")).toBe("ROMA");
    expect(cityName("Paris Cedex 09", "FR")).toBe("Paris");
    expect(cityName("MUN. CLUJ-NAPOCA", "RO")).toBe("CLUJ-NAPOCA");
    expect(cityName("гр. София", "BG")).toBe("София");
    expect(cityName("S GRAVENHAGE", "NL")).toBe("S GRAVENHAGE");
  });
});
