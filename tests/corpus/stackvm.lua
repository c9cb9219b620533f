-- stackvm.lua: interpreters written in Lua.  A stack machine with an
-- assembler (labels, conditional jumps, calls and returns with frames,
-- locals) running factorial, Fibonacci, a prime counter and Euclid's
-- algorithm; a Brainf*ck interpreter with precomputed bracket jumps,
-- fed with code generated from text and a hand-written adder; and a
-- register-machine variant dispatching through a table of closures.

-- assembler: "op arg" lines, "name:" labels, ";" comments
local function assemble(src)
  local code, labels, fixups = {}, {}, {}
  for line in src:gmatch("[^\n]+") do
    line = line:gsub(";.*", ""):match("^%s*(.-)%s*$")
    if line ~= "" then
      local label = line:match("^([%w_]+):$")
      if label then
        labels[label] = #code + 1
      else
        local op, arg = line:match("^(%a+)%s*(%S*)$")
        code[#code + 1] = op
        if arg ~= "" then
          local n = math.tointeger(tonumber(arg))
          if n then code[#code + 1] = n
          else code[#code + 1] = arg; fixups[#fixups + 1] = #code end
        end
      end
    end
  end
  for _, at in ipairs(fixups) do
    local target = labels[code[at]]
    assert(target, "unknown label " .. code[at])
    code[at] = target
  end
  return code
end

-- the machine: operand stack, call frames with locals
local function run(code, input, max_steps)
  local stack, sp = {}, 0
  local frames, fp = {}, 0
  local locals = {}
  local pc, steps, out = 1, 0, {}
  while true do
    steps = steps + 1
    if steps > max_steps then return "timeout", steps, out end
    local op = code[pc]
    pc = pc + 1
    if op == "push" then sp = sp + 1; stack[sp] = code[pc]; pc = pc + 1
    elseif op == "pop" then sp = sp - 1
    elseif op == "dup" then sp = sp + 1; stack[sp] = stack[sp - 1]
    elseif op == "swap" then stack[sp], stack[sp - 1] = stack[sp - 1], stack[sp]
    elseif op == "over" then sp = sp + 1; stack[sp] = stack[sp - 2]
    elseif op == "add" then sp = sp - 1; stack[sp] = stack[sp] + stack[sp + 1]
    elseif op == "sub" then sp = sp - 1; stack[sp] = stack[sp] - stack[sp + 1]
    elseif op == "mul" then sp = sp - 1; stack[sp] = stack[sp] * stack[sp + 1]
    elseif op == "mod" then sp = sp - 1; stack[sp] = stack[sp] % stack[sp + 1]
    elseif op == "div" then sp = sp - 1; stack[sp] = stack[sp] // stack[sp + 1]
    elseif op == "lt" then sp = sp - 1; stack[sp] = stack[sp] < stack[sp + 1] and 1 or 0
    elseif op == "eq" then sp = sp - 1; stack[sp] = stack[sp] == stack[sp + 1] and 1 or 0
    elseif op == "jmp" then pc = code[pc]
    elseif op == "jz" then
      local v = stack[sp]; sp = sp - 1
      if v == 0 then pc = code[pc] else pc = pc + 1 end
    elseif op == "jnz" then
      local v = stack[sp]; sp = sp - 1
      if v ~= 0 then pc = code[pc] else pc = pc + 1 end
    elseif op == "load" then sp = sp + 1; stack[sp] = locals[fp * 8 + code[pc]] or 0; pc = pc + 1
    elseif op == "store" then locals[fp * 8 + code[pc]] = stack[sp]; sp = sp - 1; pc = pc + 1
    elseif op == "call" then
      fp = fp + 1
      frames[fp] = pc + 1
      pc = code[pc]
    elseif op == "ret" then
      for i = 0, 7 do locals[fp * 8 + i] = nil end
      pc = frames[fp]
      fp = fp - 1
    elseif op == "in" then sp = sp + 1; stack[sp] = input[code[pc]]; pc = pc + 1
    elseif op == "out" then out[#out + 1] = stack[sp]; sp = sp - 1
    elseif op == "halt" then return "halt", steps, out
    else error("bad opcode " .. tostring(op)) end
  end
end

local programs = {
  {"factorial", [[
      in 1
      call fact
      out
      halt
    fact:            ; n -> n!
      store 0
      load 0
      push 2
      lt
      jz recurse
      push 1
      ret
    recurse:
      load 0
      load 0
      push 1
      sub
      call fact
      mul
      ret
  ]], {20}},
  {"fibonacci", [[
      push 0
      store 0        ; a
      push 1
      store 1        ; b
      in 1
      store 2        ; n
    loop:
      load 2
      jz done
      load 0
      out
      load 0
      load 1
      add
      load 1
      store 0
      store 1
      load 2
      push 1
      sub
      store 2
      jmp loop
    done:
      halt
  ]], {30}},
  {"primes", [[
      push 0
      store 0        ; count
      push 2
      store 1        ; n
    next_n:
      load 1
      in 1
      lt
      jz finished
      push 2
      store 2        ; d
    trial:
      load 2
      load 2
      mul
      load 1
      swap
      lt             ; n < d*d ?
      jnz is_prime
      load 1
      load 2
      mod
      jz not_prime
      load 2
      push 1
      add
      store 2
      jmp trial
    is_prime:
      load 0
      push 1
      add
      store 0
    not_prime:
      load 1
      push 1
      add
      store 1
      jmp next_n
    finished:
      load 0
      out
      halt
  ]], {1500}},
  {"gcd", [[
      in 1
      in 2
    again:
      dup
      jz done
      dup
      store 0
      mod
      load 0
      swap
      jmp again
    done:
      pop
      out
      halt
  ]], {1071 * 97, 462 * 97}},
  {"forever", [[
    top:
      push 1
      jmp top
  ]], {}},
}
for _, p in ipairs(programs) do
  local code = assemble(p[2])
  local status, steps, out = run(code, p[3], 200000)
  local shown = {}
  for i = 1, math.min(#out, 8) do shown[i] = tostring(out[i]) end
  print("vm", p[1], #code, status, steps, #out, table.concat(shown, " "))
end

-- Brainf*ck with precomputed jumps
local function bf(src, input)
  local code, jump, stack = {}, {}, {}
  for c in src:gmatch("[%+%-<>%.,%[%]]") do
    code[#code + 1] = c
    if c == "[" then stack[#stack + 1] = #code
    elseif c == "]" then
      local open = table.remove(stack)
      jump[open], jump[#code] = #code, open
    end
  end
  local tape, ptr, pc, inp = {}, 1, 1, 1
  local out, steps = {}, 0
  while pc <= #code do
    local c = code[pc]
    steps = steps + 1
    if c == "+" then tape[ptr] = ((tape[ptr] or 0) + 1) & 255
    elseif c == "-" then tape[ptr] = ((tape[ptr] or 0) - 1) & 255
    elseif c == ">" then ptr = ptr + 1
    elseif c == "<" then ptr = ptr - 1
    elseif c == "." then out[#out + 1] = string.char(tape[ptr] or 0)
    elseif c == "," then tape[ptr] = input:byte(inp) or 0; inp = inp + 1
    elseif c == "[" then if (tape[ptr] or 0) == 0 then pc = jump[pc] end
    elseif c == "]" then if (tape[ptr] or 0) ~= 0 then pc = jump[pc] end
    end
    pc = pc + 1
  end
  return table.concat(out), steps
end

-- generate BF that prints a text: cell 1 holds the character, cell 2 is
-- a loop counter multiplying by 8
local function bf_for(text)
  local parts = {}
  for i = 1, #text do
    local c = text:byte(i)
    parts[#parts + 1] = "[-]>" .. ("+"):rep(8) .. "[<" .. ("+"):rep(c // 8) .. ">-]<" .. ("+"):rep(c % 8) .. "."
  end
  return table.concat(parts)
end
local msg = "Interpreters all the way down: 0123456789!"
local prog = bf_for(msg)
local printed, bsteps = bf(prog, "")
print("bf", #prog, printed == msg, bsteps, printed)
-- echo input until a zero byte, upper-casing lower-case letters by
-- subtracting 32 (no conditionals in BF: only letters are given)
local echo = ",[>++++[<-------->-]<.,]"
print("bf", bf(echo, "shout"))
-- add two single digits read from input: '3','4' -> '7'
local add = ",>,[<+>-]<" .. ("-"):rep(48) .. "."
print("bf", bf(add, "34"), bf(add, "81"))

-- a register machine whose instructions are closures in a table
local function compile(prog)
  local regs = {}
  local ins = {}
  local pc = 1
  local ops = {
    set = function(r, v) return function() regs[r] = v; pc = pc + 1 end end,
    addr = function(r, s) return function() regs[r] = regs[r] + regs[s]; pc = pc + 1 end end,
    addi = function(r, v) return function() regs[r] = regs[r] + v; pc = pc + 1 end end,
    mulr = function(r, s) return function() regs[r] = regs[r] * regs[s] % 1000000007; pc = pc + 1 end end,
    jnz = function(r, off) return function() if regs[r] ~= 0 then pc = pc + off else pc = pc + 1 end end end,
  }
  for op, a, b in prog:gmatch("(%a+) (%w+) (%-?%w+)") do
    local bv = math.tointeger(tonumber(b)) or b
    ins[#ins + 1] = ops[op](a, bv)
  end
  return function()
    pc = 1
    local n = 0
    while ins[pc] do ins[pc](); n = n + 1 end
    return regs, n
  end
end
local machine = compile([[
  set a 1
  set b 1
  set i 40000
  set m 3
  addr a b
  mulr b m
  addi b 7
  addi i -1
  jnz i -4
]])
local regs, n = machine()
print("regmachine", regs.a, regs.b, regs.i, n)
