/**
 * The Lua scripts behind the Redis booking ledger (`booking-ledger.ts`), in their own
 * module so the ledger reads as what it does with each answer, and each script as one atomic step
 * on the Redis server: claim, renew, settle, learn the marker. The key layout and the marker are
 * described in the ledger's module comment.
 * @module
 */
import { luaScript } from './connection.js';

// Every script starts with the marker check (KEYS[3] is the marker hash: id, lostAt, seq). ARGV 1
// to 5 are the same in each: the marker id this ledger learnt ('' for none yet), the highest `seq`
// it saw, a new random id, now (the client's clock) and the hold (holdMs).
// A marker id is `<generation>:<random>`; each loss noticed writes the next generation.
// Redis lost the ledger's keys when, for a ledger that knew the marker, the marker is missing
// (flushed, restarted empty, evicted); or is another one that is not a later generation written
// by a loss noticed elsewhere (a marker made afresh, or an older one back from a copy); or is the
// same one with a lower `seq`, its count of the ledger's writes (back from an older snapshot or
// AOF). The marker is then written anew, the next generation with `lostAt`, so every other ledger
// (and any started later) sees the loss too, and every key with no entry is held until lostAt +
// holdMs. A marker missing where the ledger knew none is a brand-new Redis (or one that lost its
// keys before any live ledger had seen the marker: the two cannot be told apart): no hold.
const MARKER_CHECK = `
local function generation(id) return tonumber(string.match(id or '', '^(%d+):')) or 0 end
local function mark_lost(current_id, now)
  local id = (math.max(generation(ARGV[1]), generation(current_id)) + 1) .. ':' .. ARGV[3]
  redis.call('HSET', KEYS[3], 'id', id, 'lostAt', now)
  return id
end
local function check_marker()
  local known, known_seq, now = ARGV[1], tonumber(ARGV[2]), ARGV[4]
  local marker = redis.call('HMGET', KEYS[3], 'id', 'lostAt', 'seq')
  local id, lost_at, seq = marker[1], marker[2], tonumber(marker[3]) or 0
  if not id and known == '' then
    id = '1:' .. ARGV[3]
    redis.call('HSET', KEYS[3], 'id', id)
    return id, false, 0, seq
  end
  if known == '' then return id, lost_at, 0, seq end
  local lost
  if not id then lost = true
  elseif id == known then lost = known_seq > seq
  else lost = not (lost_at and generation(id) > generation(known)) end
  if not lost then return id, lost_at, 0, seq end
  return mark_lost(id, now), now, 1, seq
end
local function wrote() return redis.call('HINCRBY', KEYS[3], 'seq', 1) end
`;

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's; 6 the running entry (JSON), 7 leaseMs,
// 8 its keeping time (leaseMs + holdMs), 9 fingerprint, 10 '1' for a fresh (random) key, 11 token.
// Answers {id, noticed, seq, status, value, lease live 0/1}: status 'claimed'; 'entry' with the
// entry that stops the claim (decided as claimAnswer() does); or 'lost' with lostAt (no entry,
// held since Redis lost its keys).
export const CLAIM = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local now = tonumber(ARGV[4])
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  local live = 0
  if entry.state == 'running' then
    -- An entry written before leases had their own key (no until) counts as live until it expires.
    if entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token then live = 1 end
  end
  local stops = true
  if entry.fingerprint == ARGV[9] and live == 0 then
    local held_until = nil
    if entry.state == 'running' or entry.state == 'ambiguous' then held_until = tonumber(entry['until']) end
    if held_until ~= nil and held_until <= now then stops = false end
  end
  if stops then return {id, noticed, seq, 'entry', current, live} end
elseif lost_at and ARGV[10] ~= '1' and now < tonumber(lost_at) + tonumber(ARGV[5]) then
  return {id, noticed, seq, 'lost', lost_at, 0}
end
redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[8])
redis.call('SET', KEYS[2], ARGV[11], 'PX', ARGV[7])
return {id, noticed, wrote(), 'claimed', '', 0}
`);

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's; 6 token, 7 leaseMs, 8 until, 9 the
// entry to write again if it is gone ('' unless this ledger knows the claim's lease has not
// lapsed), 10 its keeping time. Answers {id, noticed, seq, 1 renewed or 0}.
// The entry's until is its last field (the claim writes it so): rewritten in place, the rest of
// the JSON (the fingerprint) is kept byte for byte. An own entry gone while its lease cannot have
// lapsed means Redis lost its keys: the loss is marked (unless already held) and the entry written
// again.
export const RENEW = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  if entry.state ~= 'running' or entry.token ~= ARGV[6] then return {id, noticed, seq, 0} end
  local hold = tonumber(entry.holdMs) or 0
  local updated = string.gsub(current, '"until":[^,}]*}$', '"until":' .. ARGV[8] .. '}')
  redis.call('SET', KEYS[1], updated, 'PX', tonumber(ARGV[7]) + hold)
  redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7])
  return {id, noticed, wrote(), 1}
end
if ARGV[9] == '' then return {id, noticed, seq, 0} end
if noticed == 0 and not (lost_at and tonumber(ARGV[4]) < tonumber(lost_at) + tonumber(ARGV[5])) then
  id = mark_lost(id, ARGV[4])
  noticed = 1
end
redis.call('SET', KEYS[1], ARGV[9], 'PX', ARGV[10])
redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7])
return {id, noticed, wrote(), 1}
`);

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's (now estimated); 6 token ('' for none),
// 7 outcome JSON ('' releases), 8 keepMs. Answers {id, noticed, seq}.
// Never overwrites another claimer's live claim (a lapsed one may be); a release deletes only the
// caller's own running claim.
export const SETTLE = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local current = redis.call('GET', KEYS[1])
local mine = false
if current then
  local entry = cjson.decode(current)
  if entry.state == 'running' then
    mine = ARGV[6] ~= '' and entry.token == ARGV[6]
    local live = entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token
    if live and not mine then return {id, noticed, seq} end
  end
end
if ARGV[7] == '' then
  if mine then redis.call('DEL', KEYS[1], KEYS[2]) end
  return {id, noticed, seq}
end
redis.call('SET', KEYS[1], ARGV[7], 'PX', ARGV[8])
redis.call('DEL', KEYS[2])
return {id, noticed, wrote()}
`);

// The marker check alone (every key is the marker): a ledger learns the marker when it is made.
export const LEARN = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
return {id, noticed, seq}
`);
