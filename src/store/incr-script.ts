/**
 * `INCRBY` and "expire when created" as one atomic step: KEYS[1] the counter, ARGV[1] the
 * increment, ARGV[2] the expiry in seconds. A Lua script rather than MULTI/EXEC because it
 * runs unchanged over Upstash REST (`EVAL`) and over a shared, pipelined RESP connection,
 * where a transaction would need a connection of its own. Every key the stores write carries
 * an expiry, so "no expiry" (TTL -1) right after INCRBY means this call created the key —
 * unlike "result == increment", which also holds when an existing counter passes through 0.
 */
export const INCR_WITH_EXPIRY = `local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return value`;

/**
 * INCR_WITH_EXPIRY for many counters in one call: KEYS are the counters, ARGV holds each
 * one's increment and expiry in turn. A counter that cannot be incremented (it holds
 * text) answers `"ERR …"` in its place instead of failing the others.
 */
export const INCR_MANY_WITH_EXPIRY = `local out = {}
for i, key in ipairs(KEYS) do
  local value = redis.pcall('INCRBY', key, ARGV[2 * i - 1])
  if type(value) == 'table' and value.err then
    out[i] = 'ERR ' .. value.err
  else
    if redis.call('TTL', key) == -1 then
      redis.call('EXPIRE', key, ARGV[2 * i])
    end
    out[i] = value
  end
end
return out`;
