import type { CountryFormat, IbanRegistry } from "../registry.ts";
import type { Bban, DomesticParts } from "./parts.ts";

/** What a country's builder may read besides the parts: its format, and the registry (German banks). */
export interface BuildContext {
  country: string;
  format: CountryFormat;
  registry: IbanRegistry;
}

/** Turns a country's domestic account details into its BBAN, or refuses them saying why. */
export type CountryBuilder = (parts: DomesticParts, context: BuildContext) => Bban;
