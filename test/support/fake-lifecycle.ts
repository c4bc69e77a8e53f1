import { afterAll, beforeAll, beforeEach } from "bun:test";

/** A fake of a service the tests cannot reach: its calls and behaviours are cleared by `reset()`. */
type Fake = { reset(): void; stop(): Promise<void> };

/**
 * A fake for the tests of one file (or of the enclosing `describe`): started before them, stopped
 * after them, and reset before each, so that no test sees another's behaviours or calls. The
 * returned function gives the fake.
 */
export function fakeForTests<F extends Fake>(start: () => Promise<F>): () => F {
  let fake: F | undefined;
  beforeAll(async () => {
    fake = await start();
  });
  afterAll(() => fake?.stop());
  beforeEach(() => fake?.reset());
  return () => {
    if (!fake) throw new Error("the fake has not started");
    return fake;
  };
}
