import { createIbanBuilder } from "../../../src/iban/build/build.ts";
import { engine, registry } from "../support.ts";

export const builder = createIbanBuilder(engine, registry);

/** The IBAN built, or `code: message` of the refusal. */
export function built(request: Parameters<typeof builder.build>[0]): string {
  const outcome = builder.build(request);
  return outcome.ok ? (outcome.iban.iban as string) : `${outcome.code}: ${outcome.message}`;
}
