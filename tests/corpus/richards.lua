-- Richards-style operating system task scheduler simulation.
-- Six tasks (idle, worker, two handlers, two devices) exchange packets
-- under a priority scheduler; we report queue and hold counts.

local ID_IDLE, ID_WORKER, ID_HANDLER_A, ID_HANDLER_B, ID_DEVICE_A, ID_DEVICE_B = 1, 2, 3, 4, 5, 6
local KIND_DEVICE, KIND_WORK = 0, 1
local DATA_SIZE = 4

local S_RUNNING, S_RUNNABLE, S_SUSPENDED, S_HELD = 0, 1, 2, 4
local S_SUSP_RUNNABLE = S_SUSPENDED | S_RUNNABLE
local NOT_HELD = ~S_HELD

local Packet = {}
Packet.__index = Packet

function Packet.new(link, id, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({ link = link, id = id, kind = kind, a1 = 0, a2 = data }, Packet)
end

function Packet:append_to(queue)
  self.link = nil
  if queue == nil then return self end
  local p = queue
  local nxt = p.link
  while nxt ~= nil do
    p = nxt
    nxt = p.link
  end
  p.link = self
  return queue
end

local Tcb = {}
Tcb.__index = Tcb

function Tcb.new(link, id, prio, queue, task)
  local st = queue == nil and S_SUSPENDED or S_SUSP_RUNNABLE
  return setmetatable({ link = link, id = id, prio = prio, queue = queue,
                        task = task, state = st }, Tcb)
end

function Tcb:held_or_suspended()
  return (self.state & S_HELD) ~= 0 or self.state == S_SUSPENDED
end

function Tcb:run()
  local pkt
  if self.state == S_SUSP_RUNNABLE then
    pkt = self.queue
    self.queue = pkt.link
    if self.queue == nil then self.state = S_RUNNING else self.state = S_RUNNABLE end
  end
  return self.task:run(pkt)
end

function Tcb:add_input(pkt, old)
  if self.queue == nil then
    self.queue = pkt
    self.state = self.state | S_RUNNABLE
    if self.prio > old.prio then return self end
  else
    self.queue = pkt:append_to(self.queue)
  end
  return old
end

local Sched = {}
Sched.__index = Sched

function Sched.new()
  return setmetatable({ list = nil, current = nil, current_id = 0,
                        blocks = {}, queue_count = 0, hold_count = 0 }, Sched)
end

function Sched:add_task(id, prio, queue, task)
  local t = Tcb.new(self.list, id, prio, queue, task)
  self.current = t
  self.list = t
  self.blocks[id] = t
end

function Sched:add_running_task(id, prio, queue, task)
  self:add_task(id, prio, queue, task)
  self.current.state = S_RUNNING
end

function Sched:release(id)
  local t = self.blocks[id]
  if t == nil then return nil end
  t.state = t.state & NOT_HELD
  if t.prio > self.current.prio then return t end
  return self.current
end

function Sched:hold_current()
  self.hold_count = self.hold_count + 1
  local c = self.current
  c.state = c.state | S_HELD
  return c.link
end

function Sched:suspend_current()
  local c = self.current
  c.state = c.state | S_SUSPENDED
  return c
end

function Sched:queue(pkt)
  local t = self.blocks[pkt.id]
  if t == nil then return nil end
  self.queue_count = self.queue_count + 1
  pkt.link = nil
  pkt.id = self.current_id
  return t:add_input(pkt, self.current)
end

function Sched:schedule()
  self.current = self.list
  while self.current ~= nil do
    local c = self.current
    if c:held_or_suspended() then
      self.current = c.link
    else
      self.current_id = c.id
      self.current = c:run()
    end
  end
end

-- task behaviours -------------------------------------------------------

local function idle_task(s, seed, count)
  return { run = function(self, pkt)
    count = count - 1
    if count == 0 then return s:hold_current() end
    if seed & 1 == 0 then
      seed = seed >> 1
      return s:release(ID_DEVICE_A)
    else
      seed = (seed >> 1) ~ 0xD008
      return s:release(ID_DEVICE_B)
    end
  end }
end

local function device_task(s)
  local pending = nil
  return { run = function(self, pkt)
    if pkt == nil then
      if pending == nil then return s:suspend_current() end
      local p = pending
      pending = nil
      return s:queue(p)
    end
    pending = pkt
    return s:hold_current()
  end }
end

local function worker_task(s)
  local dest, n = ID_HANDLER_A, 0
  return { run = function(self, pkt)
    if pkt == nil then return s:suspend_current() end
    if dest == ID_HANDLER_A then dest = ID_HANDLER_B else dest = ID_HANDLER_A end
    pkt.id = dest
    pkt.a1 = 0
    for i = 1, DATA_SIZE do
      n = n + 1
      if n > 26 then n = 1 end
      pkt.a2[i] = n
    end
    return s:queue(pkt)
  end }
end

local function handler_task(s)
  local work, devs = nil, nil
  return { run = function(self, pkt)
    if pkt ~= nil then
      if pkt.kind == KIND_WORK then work = pkt:append_to(work)
      else devs = pkt:append_to(devs) end
    end
    if work ~= nil then
      local idx = work.a1
      if idx < DATA_SIZE then
        if devs ~= nil then
          local d = devs
          devs = devs.link
          d.a1 = work.a2[idx + 1]
          work.a1 = idx + 1
          return s:queue(d)
        end
      else
        local w = work
        work = work.link
        return s:queue(w)
      end
    end
    return s:suspend_current()
  end }
end

local function run_once(count)
  local s = Sched.new()
  s:add_running_task(ID_IDLE, 0, nil, idle_task(s, 1, count))
  local q = Packet.new(nil, ID_WORKER, KIND_WORK)
  q = Packet.new(q, ID_WORKER, KIND_WORK)
  s:add_task(ID_WORKER, 1000, q, worker_task(s))
  q = Packet.new(nil, ID_DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_A, KIND_DEVICE)
  s:add_task(ID_HANDLER_A, 2000, q, handler_task(s))
  q = Packet.new(nil, ID_DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_B, KIND_DEVICE)
  s:add_task(ID_HANDLER_B, 3000, q, handler_task(s))
  s:add_task(ID_DEVICE_A, 4000, nil, device_task(s))
  s:add_task(ID_DEVICE_B, 5000, nil, device_task(s))
  s:schedule()
  return s.queue_count, s.hold_count
end

for _, n in ipairs({ 100, 1000, 10000, 20000, 30000 }) do
  local qc, hc = run_once(n)
  print(string.format("count=%d queued=%d held=%d", n, qc, hc))
end
