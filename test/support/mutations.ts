import type { Random } from "./prng.ts";

const utf8 = new TextEncoder();

/**
 * `count` byte-level mutations of valid bodies: each one of `valid`, changed one to four times
 * by a bit flipped, a byte dropped, a random byte inserted, a cut, or a stretch repeated — what
 * a broken client or a hostile one sends.
 */
export function mutatedBodies(random: Random, valid: string[], count: number): Uint8Array[] {
  const mutate = (bytes: number[]): number[] => {
    const at = random.int(bytes.length + 1);
    switch (random.int(5)) {
      case 0:
        return bytes.map((byte, index) => (index === at ? byte ^ (1 << random.int(8)) : byte));
      case 1:
        return [...bytes.slice(0, at), ...bytes.slice(at + 1)];
      case 2:
        return [...bytes.slice(0, at), random.int(256), ...bytes.slice(at)];
      case 3:
        return bytes.slice(0, at);
      default:
        return [...bytes.slice(0, at), ...bytes.slice(random.int(bytes.length), at), ...bytes.slice(at)];
    }
  };
  return Array.from({ length: count }, () => {
    let bytes = [...utf8.encode(random.pick(valid))];
    const rounds = 1 + random.int(4);
    for (let round = 0; round < rounds; round += 1) bytes = mutate(bytes);
    return Uint8Array.from(bytes);
  });
}
