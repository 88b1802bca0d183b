/**
 * The Lua scripts behind the Redis rate limiter. Each runs atomically on the Redis server, timed by
 * the server's clock (`TIME`), so hosts whose clocks disagree still agree on the budget.
 *
 * The budget is a lattice of slots `anchor + index × spacing` (Redis milliseconds). Each process
 * with calls waiting holds one ticket in a queue (interactive tickets before background ones,
 * each in arrival order). The head ticket reserves the next slot as soon as the slot before it has
 * come, so a reservation is known up to one spacing ahead and the process sends at its slot's time
 * on its own clock. Since slots go in queue order, every process can work out from its last answer
 * which slot would be its own; that is what it uses when Redis stops answering (see the limiter).
 * @module
 */
import { luaScript } from './connection.js';

/**
 * KEYS: the lattice (hash: anchor, last reserved index, end of a recovery), the interactive and
 * the background queue (sorted sets of process ids by expected slot index), the pause flag.
 * ARGV: 1 process id, 2 priority of its head call ('' when none), 3 priority of its next call
 * after the head ('' when none), 4 spacing, 5 the caller's deadline on the Redis clock ('' when
 * unknown), 6 the slot index the caller, pacing alone, would use next ('' when it paces in the
 * shared budget), 7 the anchor it paced on, 8 its cycle (slots between two of its own), 9 how long
 * a recovery lasts, 10 how late a slot may still be used, 11 how long idle keys live, 12 how far
 * to move later slots back when the caller's request is its first (0 otherwise), 13 how long after
 * the slot before it has come the head may reserve its own (time for a late sender to say so).
 *
 * Answers (numbers that may have fractions travel as strings):
 * - `{'reserved', index, anchor, now, total, position, slot}`: the caller's slot is `index`, at `slot`;
 *   `position` is its new ticket's place (-1 when it has none), `total` the tickets waiting.
 * - `{'wait', position, last, anchor, now, total}`: not the caller's turn yet.
 * - `{'paused', ms}`: a 429 paused the partner.
 * - `{'recovering', switchAt, now, last, anchor}`: Redis is back after an outage; processes pace
 *   on the lattice until `switchAt`, then in queue order again.
 * - `{'expired'}`: the caller had given up on this command before it ran (Redis was paused or
 *   slow): it changed nothing.
 */
export const TAKE = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
if ARGV[5] ~= '' and now > tonumber(ARGV[5]) then return {'expired'} end
local me, priority, more = ARGV[1], ARGV[2], ARGV[3]
local spacing, tolerance, ttl = tonumber(ARGV[4]), tonumber(ARGV[10]), tonumber(ARGV[11])
local interactive, background = KEYS[2], KEYS[3]
local queues = { interactive = interactive, background = background }
local anchor = tonumber(redis.call('HGET', KEYS[1], 'anchor'))
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local switch = tonumber(redis.call('HGET', KEYS[1], 'switch')) or 0
local fresh = anchor == nil or last == nil
if fresh then
  anchor = now
  last = -1
end
local function at(index) return anchor + index * spacing end
local function fmt(value) return string.format('%.3f', value) end
local function save()
  redis.call('HSET', KEYS[1], 'anchor', fmt(anchor), 'last', last, 'switch', fmt(switch))
  for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
local function back(queue)
  local top = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')
  local highest = last
  if top[2] then highest = math.max(highest, tonumber(top[2])) end
  return highest + 1
end
local function place(queue, score)
  redis.call('ZREM', interactive, me)
  redis.call('ZREM', background, me)
  redis.call('ZADD', queue, score, me)
end
local function position()
  local rank = redis.call('ZRANK', interactive, me)
  if rank then return rank end
  rank = redis.call('ZRANK', background, me)
  if rank then return redis.call('ZCARD', interactive) + rank end
  return -1
end
local function total() return redis.call('ZCARD', interactive) + redis.call('ZCARD', background) end
local function ticket()
  local queue = queues[priority]
  if queue and not redis.call('ZSCORE', queue, me) then place(queue, back(queue)) end
end

if ARGV[6] ~= '' then
  -- The caller paced alone during an outage. If no slot has been reserved since the lattice's
  -- last one, Redis is back from that outage: everyone keeps pacing on the lattice they followed
  -- alone until the switch, when the queue takes over in the order they paced in.
  if now >= switch and (fresh or now > at(last) + spacing + tolerance) then
    anchor = tonumber(ARGV[7])
    switch = now + tonumber(ARGV[9])
    last = math.ceil((switch - anchor) / spacing) - 1
    redis.call('DEL', interactive, background)
  end
  if now < switch then
    local claim, cycle = tonumber(ARGV[6]), math.max(1, tonumber(ARGV[8]))
    while claim <= last do claim = claim + cycle end
    if queues[priority] then place(queues[priority], claim) end
    save()
    return {'recovering', fmt(switch), fmt(now), last, fmt(anchor)}
  end
end
if now < switch then
  ticket()
  save()
  return {'recovering', fmt(switch), fmt(now), last, fmt(anchor)}
end
ticket()
redis.call('HDEL', KEYS[1], 'missed:' .. me)
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then
  save()
  return {'paused', paused}
end
local head = redis.call('ZRANGE', interactive, 0, 0)[1] or redis.call('ZRANGE', background, 0, 0)[1]
if head and head ~= me and now >= at(last + 1) - tolerance then
  -- The head let its slot pass without reserving it (a stalled or stopped process): it steps
  -- behind the next place in its line, and leaves the queue at its second miss in a row.
  local queue = redis.call('ZSCORE', interactive, head) and interactive or background
  local next = redis.call('ZRANGE', queue, 1, 1, 'WITHSCORES')
  if redis.call('HINCRBY', KEYS[1], 'missed:' .. head, 1) >= 2 or not next[2] then
    redis.call('ZREM', queue, head)
    redis.call('HDEL', KEYS[1], 'missed:' .. head)
  else
    redis.call('ZADD', queue, tonumber(next[2]) + 0.5, head)
  end
  head = redis.call('ZRANGE', interactive, 0, 0)[1] or redis.call('ZRANGE', background, 0, 0)[1]
end
if head ~= me or now < at(last) + tonumber(ARGV[13]) then
  save()
  return {'wait', position(), last, fmt(anchor), fmt(now), total()}
end
local slot = at(last + 1)
if slot < now - tolerance then
  -- Idle (or the head came late): the lattice starts again now.
  anchor = now - (last + 1) * spacing
  slot = now
end
last = last + 1
-- A process's first request reaches the service later after its slot (connection set-up) than
-- later ones: the slots after it move back by that much.
anchor = anchor + tonumber(ARGV[12])
redis.call('ZREM', interactive, me)
redis.call('ZREM', background, me)
if queues[more] then place(queues[more], back(queues[more])) end
save()
return {'reserved', last, fmt(anchor), fmt(now), total(), position(), fmt(slot)}
`);

/**
 * Sent by a process whose request left `ARGV[2]` ms after its slot `ARGV[1]` (a busy host can hold a
 * process that long between its slot and its request): the slots not reserved yet move back by as
 * much, so the next request still reaches the service a whole interval after this one.
 * KEYS[1] the lattice.
 */
export const LATE = luaScript(`
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
if last == nil or last ~= tonumber(ARGV[1]) then return 0 end
local anchor = tonumber(redis.call('HGET', KEYS[1], 'anchor')) + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'anchor', string.format('%.3f', anchor))
return 1
`);

/**
 * For an estimate: KEYS as {@link TAKE}. ARGV: 1 spacing. Answers
 * `{last, anchor, now, interactive tickets, all tickets, pause ms}`.
 */
export const PEEK = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local anchor = tonumber(redis.call('HGET', KEYS[1], 'anchor')) or now
local last = tonumber(redis.call('HGET', KEYS[1], 'last')) or -1
local interactive = redis.call('ZCARD', KEYS[2])
return {last, string.format('%.3f', anchor), string.format('%.3f', now), interactive,
  interactive + redis.call('ZCARD', KEYS[3]), math.max(0, redis.call('PTTL', KEYS[4]))}
`);

/** KEYS[1] the pause flag; ARGV[1] the pause in ms. Never shortens a longer pause already set. */
export const PAUSE = luaScript(`
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('SET', KEYS[1], '1', 'PX', ms) end
return 1
`);
