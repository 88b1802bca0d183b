/**
 * The Lua scripts behind the Redis rate limiter. Each runs atomically on the Redis server, timed by
 * the server's clock (`TIME`), so hosts whose clocks disagree still agree on the budget.
 *
 * The budget is a lattice of slots `anchor + index × spacing` (Redis milliseconds). Each process
 * with calls waiting holds one ticket in a queue (interactive tickets before background ones,
 * each in arrival order). The head ticket reserves the next slot as soon as the slot before it has
 * come. At its slot the process asks to send ({@link GO}): Redis lets it only once the request of
 * the slot before has been reported ended ({@link END}) a whole window ago, so two requests reach
 * the service a window apart however late either left its process (a busy host holds a process
 * for hundreds of milliseconds). Since slots go in queue order, every process can work out from
 * its last answer which slot would be its own; that is what it uses when Redis stops answering
 * (see the limiter).
 *
 * The lattice hash also records the chain: `sent`, the last slot granted, `goAt`, when, and
 * `ended`, when its request was reported ended (absent while it is out). A lattice found empty (the
 * keys expired, `FLUSHALL`, a restart) assumes a request went just before: its `ended` lies
 * `ARGV[12]` ms ahead, so the first grant comes a window and that much later.
 * @module
 */
import { luaScript } from './connection.js';

/**
 * KEYS: the lattice (hash: anchor, last reserved index, end of a recovery, the chain), the
 * interactive and the background queue (sorted sets of process ids by expected slot index), the
 * pause flag.
 * ARGV: 1 process id, 2 priority of its head call ('' when none), 3 priority of its next call
 * after the head ('' when none), 4 spacing, 5 the caller's deadline on the Redis clock ('' when
 * unknown), 6 the slot index the caller, pacing alone, would use next ('' when it paces in the
 * shared budget), 7 the anchor it paced on, 8 its cycle (slots between two of its own), 9 how long
 * a recovery lasts, 10 how late a slot may still be used, 11 how long idle keys live, 12 how long
 * a request sent without Redis's knowledge (before the state was lost, or pacing alone) may still
 * take to reach the service, 13 how long after the slot before it has come the head may reserve
 * its own (time for that slot's process to send first), 14 how long ago the caller last sent
 * without Redis (pacing alone; '' when it has not since its last answer), 15 the service's window
 * as for {@link GO}.
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
local assumeOut = tonumber(ARGV[12])
local function fmt(value) return string.format('%.3f', value) end
if fresh then
  anchor = now
  last = -1
  -- The state is gone (expired, flushed, a restarted Redis): a request may have been granted just
  -- before and still be on its way. The first grant waits for it as for any request still out.
  redis.call('HSET', KEYS[1], 'sent', -1, 'goAt', fmt(now), 'ended', fmt(now + assumeOut))
end
local function at(index) return anchor + index * spacing end
if ARGV[14] ~= '' then
  -- The caller sent without Redis: no grant before that request has reached the service a window ago.
  local untilAt = now - tonumber(ARGV[14]) + assumeOut + tonumber(ARGV[15])
  if untilAt > (tonumber(redis.call('HGET', KEYS[1], 'aloneUntil')) or 0) then
    redis.call('HSET', KEYS[1], 'aloneUntil', fmt(untilAt))
  end
end
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
    -- The slots up to the switch are sent without Redis's knowledge: the queue's first grant
    -- waits a window after the last of them may have reached the service.
    redis.call('HSET', KEYS[1], 'sent', last, 'goAt', fmt(at(last)), 'ended', fmt(at(last) + assumeOut))
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
redis.call('ZREM', interactive, me)
redis.call('ZREM', background, me)
if queues[more] then place(queues[more], back(queues[more])) end
save()
return {'reserved', last, fmt(anchor), fmt(now), total(), position(), fmt(slot)}
`);

/**
 * Asked by a process at its reserved slot: may it send now? KEYS as {@link TAKE}.
 * ARGV: 1 the slot index, 2 the caller's deadline on the Redis clock ('' when unknown), 3 spacing,
 * 4 the service's window (ms between two requests as it counts them, with a rounding margin),
 * 5 how long a request may stay out unreported before it is taken to have reached the service
 * (its process died or stalled), 6 how long idle keys live.
 *
 * Answers:
 * - `{'go', now, anchor}`: send now. The slot is recorded as sent; its request is out until END.
 * - `{'hold', now, ms}`: not yet: ask again in `ms` (0: when the request before is reported ended).
 * - `{'lost', now}`: the slot is no longer the caller's (the state was lost, or a later slot went
 *   first): ask for a new one.
 * - `{'paused', ms}`, `{'expired'}`: as for {@link TAKE}.
 */
export const GO = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
if ARGV[2] ~= '' and now > tonumber(ARGV[2]) then return {'expired'} end
local function fmt(value) return string.format('%.3f', value) end
local index, spacing, window = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[4])
local anchor = tonumber(redis.call('HGET', KEYS[1], 'anchor'))
local last = tonumber(redis.call('HGET', KEYS[1], 'last'))
local sent = tonumber(redis.call('HGET', KEYS[1], 'sent'))
if anchor == nil or last == nil or sent == nil or index > last or index <= sent then
  return {'lost', fmt(now)}
end
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then return {'paused', paused} end
local ended = tonumber(redis.call('HGET', KEYS[1], 'ended'))
local earliest
if ended then
  earliest = ended + window
elseif now >= tonumber(redis.call('HGET', KEYS[1], 'goAt')) + tonumber(ARGV[5]) then
  -- Never reported (its process died or stalled): taken to have reached the service by now.
  earliest = tonumber(redis.call('HGET', KEYS[1], 'goAt')) + tonumber(ARGV[5]) + window
else
  return {'hold', fmt(now), 0}
end
local slot = anchor + index * spacing
local at = math.max(earliest, slot, tonumber(redis.call('HGET', KEYS[1], 'aloneUntil')) or 0)
if at > now then return {'hold', fmt(now), fmt(at - now)} end
-- The slots after this one keep their spacing from when it really went.
anchor = anchor + (now - slot)
redis.call('HSET', KEYS[1], 'anchor', fmt(anchor), 'sent', index, 'goAt', fmt(now))
redis.call('HDEL', KEYS[1], 'ended')
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[6])) end
return {'go', fmt(now), fmt(anchor)}
`);

/**
 * Sent by the process of slot `ARGV[1]` when its request ended: answered or failed (it reached
 * the service by now, if ever), or never sent (`ARGV[2]` is `unsent`: the next may go at once).
 * ARGV[3] the window, as for {@link GO}. KEYS[1] the lattice.
 */
export const END = luaScript(`
local sent = tonumber(redis.call('HGET', KEYS[1], 'sent'))
if sent == nil or sent ~= tonumber(ARGV[1]) or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then return 0 end
local time = redis.call('TIME')
local ended = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
if ARGV[2] == 'unsent' then ended = tonumber(redis.call('HGET', KEYS[1], 'goAt')) - tonumber(ARGV[3]) end
redis.call('HSET', KEYS[1], 'ended', string.format('%.3f', ended))
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
