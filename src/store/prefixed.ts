import type { KeyValueStore } from "./kv.ts";

/** A view of a store in which every key is prefixed: one Redis, several environments. */
export function prefixedStore(store: KeyValueStore, prefix: string): KeyValueStore {
  const runScript = store.runScript?.bind(store);
  return {
    kind: store.kind,
    get: (key) => store.get(prefix + key),
    set: (key, value, ttlSeconds) => store.set(prefix + key, value, ttlSeconds),
    del: (key) => store.del(prefix + key),
    incr: (key, by, ttlSeconds) => store.incr(prefix + key, by, ttlSeconds),
    runScript:
      runScript &&
      ((script, keys, args) =>
        runScript(
          script,
          keys.map((key) => prefix + key),
          args,
        )),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
