# lraf - build, test and benchmark.
#
#   make run    install missing packages, build, run a bundled example
#   make test   install missing packages, build, run every test on both
#               targets (the lraf VM and the stock target)
#
# Two builds (docs/lraf-vm.md): build/ is the lraf VM (LRAF_VM=1, the
# default: Lua 5.4.4 or 5.4.7 from Debian's source package plus the
# patches of lravm/patches/series-5.4.x, linked in), build/stock the stock target
# (LRAF_VM=0, against Debian's liblua5.4).  `make` builds both; without
# the lraf VM's sources it builds build/stock alone and says so.
#   make examples  build examples/*.c into $(BUILD)/examples (tests run them)
#   make bench  overhead benchmarks (tests/bench; bench-native: native
#               cost calibration and the overhead of native charging);
#               writes docs/measurements.md
#   make fuzz-diff SEEDS=N [START=S]   differential test of N generated programs
#   make fuzz [FUZZ_TIME=600]          each libFuzzer target for FUZZ_TIME s
#
# Layers (a folder uses only the folders above it; accounts/ knows no
# Lua).  Every module's sources go into build/liblraf.{a,so}, which
# exports only what include/lraf.h marks LRAF_API:
#   common/    err_fail (the error value every layer fills), status names
#   bytecode/        Lua 5.4 bytecode in memory: bc_read, checks, bc_list, bc_write
#   rewriter/  rw_rewrite adds the accounting code to a chunk; rw_verify
#   accounts/  accounts and managers (total, limit, hierarchical, rate)
#   profile/   the profiler's core: calling-context tree, outputs, diff
#   runtime/   the host API: states, loading, calls, the counter;
#              runtime/native/ charges native work (nat_)
#   cli/       the lraf command, compiled against include/lraf.h only
#
# What a load does (runtime/rt_load.c, rt_pipeline.c): Lua's parser
# compiles the source (text only) -> rt_dump (lua_dump) -> bc_read ->
# rw_rewrite -> rw_verify -> bc_write -> lua_load, and the chunk's
# counter and consume upvalues are joined to the state's.  The running
# code adds block costs to the counter; when it reaches 0 it calls
# consume (rt_counter.c), which charges the thread's account, whose
# manager (accounts/) may let it go on, make it sleep, or stop it with
# the quota error (rt_protect.c).  lraf_rewrite runs the same pipeline
# offline and writes the chunk behind a marker and the cost-model id.
#
# Native charging (docs/cost-model.md) is runtime/native/ (nat_): nat_open.c
# installs nat_wrap.c's wrapper over the built-ins the models of nat_cost.c
# size (with nat_next.c, nat_table.c, nat_audit.c, nat_hidden.c,
# nat_match.c) and charge in nat_units.c's units, nat_lpeg.c is
# the metered LPeg; runtime/rt_alloc.c counts the rewriter's memory under
# the memory limit.  The amplification suite is tests/amplify/*.lua, run
# by test_amplify.

CC      ?= cc
LUA_PC  := lua5.4
PKGS    := liblua5.4-dev lua5.4 lua-lpeg libcmocka-dev pkg-config
# Only the tests need these (make run does not).
TEST_PKGS := valgrind
# service/ (request pool, ledger) and lraf serve
PKGS    += libsqlite3-dev libpq-dev libmicrohttpd-dev
# the lraf VM: apt-get source and Debian's patches
PKGS    += dpkg-dev patch
TEST_PKGS += sqlite3 postgresql curl
# /metrics read by a strict OpenMetrics parser (test_cli_serve_metrics,
# test_cli_serve_auth)
TEST_PKGS += python3-prometheus-client
# the timeline's checks (test_pf_tlout_trace): the trace's schema, the SVG in a browser
TEST_PKGS += python3 python3-jsonschema chromium util-linux
BUILD   ?= build
LRAF_VM ?= 1
STOCK   := build/stock
OPT     ?= -O2
SAN     ?=

LUA_CFLAGS := $(shell pkg-config --cflags $(LUA_PC) 2>/dev/null)
LUA_LIBS   := $(shell pkg-config --libs $(LUA_PC) 2>/dev/null)
LUA_DEP    :=

# The lraf VM (docs/lraf-vm.md): with LRAF_VM=1 everything is
# built against Debian's Lua 5.4.4 or 5.4.7 source package plus the
# lravm/patches series of that release (lravm/fetch.sh puts it in $(LRAVM_SRC)),
# compiled into $(BUILD)/lua/liblua.a.  With LRAF_VM=0 it is built
# against Debian's liblua5.4 (the stock target, in $(STOCK)).
LRAVM_SRC := build/lua-lravm
LRAVM_C   := lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject \
             lopcodes lparser lstate lstring ltable ltm lundump lvm lzio \
             lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib \
             lstrlib ltablib lutf8lib linit ldet lacct
LRAVM_OBJ := $(LRAVM_C:%=$(BUILD)/lua/%.o)
# Debian's flags for liblua5.4 (debian/rules, src/Makefile), then ours
# -falign-functions=64: every function of the VM starts a cache line, so
# that lraf and the lraf VM's own lua (the benchmarks' baseline) run the
# interpreter at the same alignment, whatever links before it (moving
# luaV_execute by 16 bytes changed a program's time by up to 25%)
LRAVM_CFLAGS = -std=gnu99 -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX \
             $(shell dpkg-buildflags --get CPPFLAGS 2>/dev/null) \
             $(shell dpkg-buildflags --get CFLAGS 2>/dev/null) $(OPT) -fPIC \
             -falign-functions=64 $(SAN) $(LRAVM_USER)
# lravm/patches/lua-determinism.patch: ldet.h fills Lua's seed and pivot
# hooks, in every file that includes lua.h
LRAVM_USER = -DLUA_USER_H='"ldet.h"'
ifeq ($(LRAF_VM),1)
LUA_CFLAGS := -I$(LRAVM_SRC)/src -DLRAF_VM $(LRAVM_USER)
# -E: C modules (Debian's lpeg.so) find the Lua API in the executable
LUA_LIBS   := $(BUILD)/lua/liblua.a -Wl,-E -ldl
LUA_DEP    := $(LRAVM_SRC)/.ok $(BUILD)/lua/liblua.a
endif

# A build directory holds one target: a stamp names it, and make refuses
# to mix the two in one directory.
VM_STAMP := $(BUILD)/.lraf-vm-$(LRAF_VM)
ifneq ($(wildcard $(BUILD)/.lraf-vm-$(if $(filter 1,$(LRAF_VM)),0,1)),)
$(error $(BUILD) holds the build of LRAF_VM=$(if $(filter 1,$(LRAF_VM)),0,1); \
  use BUILD=$(if $(filter 1,$(LRAF_VM)),$(STOCK),build) or make clean)
endif
.DEFAULT_GOAL := all

$(VM_STAMP):
	@mkdir -p $(dir $@) && touch $@

# lraf's metered LPeg (docs/cost-model.md, native charging): LPeg 1.0.2 or
# 1.1.0 (the installed lua-lpeg's release) from Debian's lua-lpeg source
# with runtime/native/lpeg/lpeg-steps-RELEASE.patch, fetched by
# runtime/native/lpeg/fetch.sh into $(LPEG_SRC), whose .c files are compiled
# into the library.
# $(BUILD)/lpeg.mk records whether that worked (make remakes it first;
# delete it to fetch again; a missing tool is not recorded): without it,
# require "lpeg" loads Debian's lpeg.so and a backtracking grammar is a
# gap.
LPEG_SRC := build/lpeg-meter
LPEG_C   := lpcap lpcode lpprint lptree lpvm
LPEG_OBJ :=
-include $(BUILD)/lpeg.mk

CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(OPT) -g \
           -fPIC -Iinclude -Icommon -Ibytecode -Irewriter -Iaccounts -Iprofile \
           -Iruntime -Iruntime/native $(LUA_CFLAGS) $(SAN)
LDFLAGS := $(SAN)
LIBS    := $(LUA_LIBS) -lm -lpthread
# service/: the ledger's stores; cli/cli_serve.c: the HTTP front
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null)
CFLAGS  += -Iservice $(PQ_CFLAGS)
# libsqlite3, libpq and libmicrohttpd are opened at run time, on first
# use (service/sv_dl.c, cli/cli_dl_mhd.c), so that
# lraf run and an embedder that only meters never load them and the ~25
# libraries they pull in.  Their sonames are read here from the -dev
# packages' link-time libraries; without one, that file's #error stops
# the build.  Only the tests that call them directly link them, and the
# fuzz targets (SERVICE_LIBS: tutil_fuzz_ledger.c, fuzz_http.c).
soname = $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" \
           2>/dev/null | sed -n 's/^ *SONAME *//p')
SONAME_SQLITE := $(call soname,sqlite3)
SONAME_PQ     := $(call soname,pq)
SONAME_MHD    := $(call soname,microhttpd)
LIBS    += -ldl
SERVICE_LIBS := -lsqlite3 -lpq -lmicrohttpd

MODULES  := common bytecode rewriter accounts profile runtime runtime/native \
            service
# profile/: the profiler's core (pf_; knows no Lua, like accounts/); its
# stock collector is runtime/rt_profile.c.
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
CLI_SRC  := $(filter-out cli/lraf_lua.c,$(wildcard cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LPEG_OBJ)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
HEADERS  := $(wildcard include/*.h cli/*.h $(foreach m,$(MODULES),$(m)/*.h))

# tests/unit: one module each; tests/system: whole programs and the
# command; tests/support: helpers linked into every test.
TEST_SRC := $(wildcard tests/unit/test_*.c tests/system/test_*.c)
TEST_BIN := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(TEST_SRC)))
TEST_SUPPORT := $(wildcard tests/support/*.c)

# examples/*.c: each one program over the public header only.
EX_BIN   := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

.PHONY: all programs deps run test check unit san-test bench bench-native bench-profile bench-timeline bench-rwmem clean \
        examples memcheck fuzz fuzz-build fuzz-deps fuzz-diff vm stock bench-vm bench-rw test-vm

# Both builds: the stock target first (it needs nothing fetched), then
# the lraf VM when its sources can be had.
all: deps
	@$(MAKE) --no-print-directory programs BUILD=$(STOCK) LRAF_VM=0
	@if lravm/fetch.sh $(LRAVM_SRC); then \
	  $(MAKE) --no-print-directory programs BUILD=build LRAF_VM=1; \
	else echo "lraf: built without the lraf VM (its sources: above);" \
	  "$(STOCK)/lraf runs on the stock target"; fi

# One build's library, commands and examples ($(BUILD), $(LRAF_VM)).
programs: $(BUILD)/liblraf.a $(BUILD)/liblraf.so $(BUILD)/lraf $(BUILD)/lraf-lua examples

# Install the Debian packages lraf needs, or say how to.
DEPS_PKGS = $(PKGS)
test memcheck: DEPS_PKGS = $(PKGS) $(TEST_PKGS)
deps:
	@missing=""; for p in $(DEPS_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "lraf: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "lraf: missing packages; run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

# The library exports only what include/lraf.h marks LRAF_API.
$(BUILD)/%.o: %.c $(HEADERS) $(LUA_DEP) | $(VM_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -c $< -o $@

# ---- the metered LPeg (runtime/native/nat_lpeg.c) ----
$(BUILD)/lpeg.mk: runtime/native/lpeg/fetch.sh $(wildcard runtime/native/lpeg/lpeg-steps-*.patch) tools/apt-source.sh
	@mkdir -p $(dir $@)
	@runtime/native/lpeg/fetch.sh $(LPEG_SRC); st=$$?; \
	if [ $$st = 0 ]; then \
	  echo "LPEG_C := $$(cd $(LPEG_SRC) && ls *.c | sed 's/\.c$$//' | tr '\n' ' ')" >$@; \
	  echo 'LPEG_OBJ := $$(LPEG_C:%=$$(BUILD)/lpeg/%.o)' >>$@; \
	else echo "lraf: no metered LPeg (above): require 'lpeg' stays Debian's lpeg.so"; \
	  [ $$st = 2 ] || echo '# runtime/native/lpeg/fetch.sh failed: no metered LPeg' >$@; fi

$(BUILD)/lpeg/%.o: $(LPEG_SRC)/%.c runtime/native/lpeg/lpm_names.h $(BUILD)/lpeg.mk $(LUA_DEP) | $(VM_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -DNDEBUG $(OPT) -g -fPIC -fvisibility=hidden \
	  -include runtime/native/lpeg/lpm_names.h $(LUA_CFLAGS) $(SAN) -c $< -o $@

$(BUILD)/service/sv_dl.o: CFLAGS += \
  $(if $(SONAME_SQLITE),-DSV_SQLITE_SONAME='"$(SONAME_SQLITE)"') \
  $(if $(SONAME_PQ),-DSV_PG_SONAME='"$(SONAME_PQ)"')
$(BUILD)/cli/cli_dl_mhd.o: CLI_CFLAGS += \
  $(if $(SONAME_MHD),-DCLI_MHD_SONAME='"$(SONAME_MHD)"')

$(BUILD)/runtime/native/nat_lpeg.o: $(BUILD)/lpeg.mk
$(BUILD)/runtime/native/nat_lpeg.o: CFLAGS += $(if $(LPEG_OBJ),-DLRAF_LPEG)

# ---- the lraf VM's Lua (LRAF_VM=1) ----
$(LRAVM_SRC)/.ok: lravm/fetch.sh $(wildcard lravm/patches/*) tools/apt-source.sh
	lravm/fetch.sh $(LRAVM_SRC)

$(LRAVM_OBJ): $(BUILD)/lua/%.o: $(LRAVM_SRC)/.ok
	@mkdir -p $(dir $@)
	$(CC) $(LRAVM_CFLAGS) -c $(LRAVM_SRC)/src/$*.c -o $@

# the interpreter loop: without cross-jumping GCC keeps one dispatch
# jump per opcode (81 in luaV_execute, against 6 shared ones), which the
# branch predictor tells apart (docs/lraf-vm.md, "Measured"); GCC's
# option, which clang (the fuzz builds) does not take
NO_CROSSJUMP := $(shell $(CC) -fno-crossjumping -E -x c /dev/null \
                  >/dev/null 2>&1 && echo -fno-crossjumping)
$(BUILD)/lua/lvm.o: LRAVM_CFLAGS += $(NO_CROSSJUMP)

$(BUILD)/lua/liblua.a: $(LRAVM_OBJ)
	rm -f $@ && ar rcs $@ $^

# the lraf VM's stand-alone lua (no readline), for benchmarks
$(BUILD)/lua/lua: $(LRAVM_SRC)/.ok $(BUILD)/lua/liblua.a
	$(CC) $(LRAVM_CFLAGS) -o $@ $(LRAVM_SRC)/src/lua.c $(BUILD)/lua/liblua.a \
	  -Wl,-E -ldl -lm

# Every unit test against the lraf VM (build/).  Without the sources
# (no network, no deb-src derivable) it says so and skips, never passes.
test-vm: deps
	@if lravm/fetch.sh $(LRAVM_SRC); then \
	  $(MAKE) --no-print-directory -j2 unit BUILD=build LRAF_VM=1 \
	    $(if $(TALLY),TALLY=$(TALLY)); \
	else echo "SKIP: the lraf VM's tests: lravm/fetch.sh failed (above)"; fi

# The lraf VM build alone (build/), with its stand-alone lua for the
# benchmarks; the stock build alone (build/stock).
vm: deps
	$(MAKE) --no-print-directory BUILD=build LRAF_VM=1 programs build/lua/lua
stock: deps
	$(MAKE) --no-print-directory BUILD=$(STOCK) LRAF_VM=0 programs

# The command is compiled against the public header alone (and its own
# cli/*.h): no internal header of the library is on its include path.
CLI_CFLAGS := $(filter-out -Icommon -Ibytecode -Irewriter -Iaccounts -Iprofile \
                -Iruntime -Iruntime/native,$(CFLAGS)) -Icli
$(BUILD)/cli/%.o: cli/%.c include/lraf.h $(wildcard cli/*.h) $(LUA_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

# The lraf VM build's libraries carry the lraf VM itself (its Lua objects),
# so that an embedder links liblraf alone.
LIB_LUA_OBJ := $(if $(filter 1,$(LRAF_VM)),$(LRAVM_OBJ))
$(BUILD)/liblraf.a: $(LIB_OBJ) $(LIB_LUA_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# liblraf.so.VERSION with the SONAME liblraf.so.MAJOR, and the two
# symbolic links to it (liblraf.so for the linker, the SONAME for the
# loader).
LIB_VERSION := $(shell sed -n 's/^\#define LRAF_VERSION "\(.*\)"/\1/p' include/lraf.h)
SONAME := liblraf.so.$(firstword $(subst ., ,$(LIB_VERSION)))
$(BUILD)/liblraf.so.$(LIB_VERSION): $(LIB_OBJ) $(LUA_DEP)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $(LIB_OBJ) $(LIBS)
$(BUILD)/liblraf.so: $(BUILD)/liblraf.so.$(LIB_VERSION)
	ln -sf liblraf.so.$(LIB_VERSION) $(BUILD)/$(SONAME)
	ln -sf liblraf.so.$(LIB_VERSION) $@

$(BUILD)/lraf: $(CLI_OBJ) $(BUILD)/liblraf.a $(LUA_DEP)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/liblraf.a $(LIBS)

# lraf-lua (docs/security.md, lraf-lua): lua5.4's command line, metered through LRAF_OPTIONS, which
# the command's own option parser reads (so it links the command's
# objects but its main).  -ldl: -i opens libreadline at run time when it
# is there.
LRAF_LUA_OBJ := $(BUILD)/cli/lraf_lua.o $(filter-out $(BUILD)/cli/cli_main.o,$(CLI_OBJ))
$(BUILD)/lraf-lua: $(LRAF_LUA_OBJ) $(BUILD)/liblraf.a
	$(CC) $(LDFLAGS) -o $@ $(LRAF_LUA_OBJ) $(BUILD)/liblraf.a $(LIBS) -ldl

# The helpers go in an archive, so that a test links only those it
# calls; the tests that call libsqlite3 or libpq themselves (directly or
# through tutil_fuzz_ledger.c) link them.
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:tests/support/%.c=$(BUILD)/tests/support/%.o)
$(BUILD)/tests/support/%.o: tests/support/%.c tests/support/*.h $(HEADERS) $(LUA_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icli -Itests/support -c $< -o $@
$(BUILD)/tests/libtutil.a: $(TEST_SUPPORT_OBJ)
	rm -f $@ && ar rcs $@ $^

TEST_LIBS :=
$(addprefix $(BUILD)/tests/,test_sv_ledger test_sv_sqlite test_sv_drain test_fuzz_regress \
  test_sv_sqlite_crash test_cli_serve_http_fuzz test_cli_serve_load \
  test_sv_billing_serve test_cli_serve_auth test_serve_reserve \
  test_serve_periods): \
  TEST_LIBS := -lsqlite3
$(BUILD)/tests/test_sv_lease_hosts: TEST_LIBS := -lpq

vpath test_%.c tests/unit tests/system
# The unit suites of the command's files (tests/unit/test_cli_*.c) call
# them through cli/*.h: they link the command's objects but its main,
# from an archive, so that each takes only those it calls.
$(BUILD)/tests/libcli.a: $(filter-out $(BUILD)/cli/cli_main.o,$(CLI_OBJ))
	rm -f $@ && ar rcs $@ $^
$(BUILD)/tests/test_cli_%: tests/unit/test_cli_%.c $(BUILD)/tests/libcli.a \
    $(BUILD)/tests/libtutil.a $(BUILD)/liblraf.a $(HEADERS) tests/support/*.h $(LUA_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icli -Itests/support -o $@ $< $(BUILD)/tests/libtutil.a \
	  $(BUILD)/tests/libcli.a $(BUILD)/liblraf.a $(LIBS) $(TEST_LIBS) -lcmocka
$(BUILD)/tests/%: %.c $(BUILD)/tests/libtutil.a $(BUILD)/liblraf.a $(HEADERS) tests/support/*.h $(LUA_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/support -o $@ $< $(BUILD)/tests/libtutil.a $(BUILD)/liblraf.a $(LIBS) $(TEST_LIBS) -lcmocka

examples: $(EX_BIN)

$(BUILD)/examples/%: examples/%.c $(BUILD)/liblraf.a include/lraf.h $(LUA_DEP)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(OPT) -g \
	  -Iinclude $(LUA_CFLAGS) $(SAN) -o $@ $< $(BUILD)/liblraf.a $(LIBS)

# Run the bundled example counted, with a summary on stderr: on the lraf
# VM, or on the stock target when the lraf VM could not be built.
run: all
	@if [ -x build/lraf ]; then l=build/lraf; else l=$(STOCK)/lraf; fi; \
	echo "$$l run --report - examples/hello.lua"; $$l run --report - examples/hello.lua

# Every unit test on the stock target, then against the lraf VM, then under
# ASan and UBSan, then the runtime's tests and the lraf command under
# valgrind; the last line adds up what cmocka reported in all of them
# (tests/run_suites.sh).
TEST_TALLY := $(CURDIR)/build/test-tally
test: deps
	@mkdir -p build && rm -f $(TEST_TALLY)
	$(MAKE) --no-print-directory unit BUILD=$(STOCK) LRAF_VM=0 TALLY=$(TEST_TALLY)
	$(MAKE) --no-print-directory test-vm TALLY=$(TEST_TALLY)
	LRAF_QUICK=1 $(MAKE) --no-print-directory unit BUILD=build-san LRAF_VM=0 OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  TALLY=$(TEST_TALLY)
	$(MAKE) --no-print-directory memcheck BUILD=$(STOCK) LRAF_VM=0 TALLY=$(TEST_TALLY)
	@tests/run_suites.sh --total $(TEST_TALLY)

MEMCHECK_TESTS := test_rt_accounts test_rt_load test_rt_sandbox test_rt_protect test_rt_stop \
                  test_cli_run test_acct_manager test_acct_budget_threads \
                  test_bc_read_malformed test_rw_cfg_checks
# service/: the request pool and the ledger
MEMCHECK_TESTS += test_sv_pool test_sv_request test_sv_ledger test_sv_commit
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --error-exitcode=9

# make unit (or memcheck) alone keeps its own tally and ends with its sum.
TALLY ?= $(CURDIR)/$(BUILD)/tests/tally
TALLY_OWN = $(filter $(CURDIR)/$(BUILD)/tests/tally,$(TALLY))

memcheck: deps $(BUILD)/lraf $(MEMCHECK_TESTS:%=$(BUILD)/tests/%)
	@mkdir -p $(dir $(TALLY)) && rm -f $(TALLY_OWN)
	@LRAF_QUICK=1 LRAF=$(BUILD)/lraf tests/run_suites.sh $(TALLY) --quiet \
	  --prefix "$(VALGRIND)" $(MEMCHECK_TESTS:%=$(BUILD)/tests/%)
	$(VALGRIND) $(BUILD)/lraf run --report - examples/hello.lua >/dev/null
	@$(if $(TALLY_OWN),tests/run_suites.sh --total $(TALLY))

unit: $(BUILD)/liblraf.a $(BUILD)/liblraf.so $(BUILD)/lraf $(BUILD)/lraf-lua $(EX_BIN) $(TEST_BIN)
	@mkdir -p $(dir $(TALLY)) && rm -f $(TALLY_OWN)
	@LRAF=$(BUILD)/lraf tests/run_suites.sh $(TALLY) $(TEST_BIN)
	@$(if $(TALLY_OWN),tests/run_suites.sh --total $(TALLY))

# Every bench script writes its output into build/measurements/NAME.md;
# tools/measurements.sh assembles docs/measurements.md from them (a
# section that was not run is kept as it was).
bench: all
	BUILD=$(STOCK) tests/bench/run.sh
	tests/bench/native.sh
	tests/bench/serve.sh
	tests/bench/profile.sh
	tests/bench/timeline.sh
	tests/bench/vm.sh
	tests/bench/rwmem.sh
	tools/measurements.sh

# What lraf profile costs over plain lua5.4 and over lraf run.
bench-profile: all
	tests/bench/profile.sh
	tools/measurements.sh

# What --timeline costs over lraf run (tests/bench/timeline.sh)
bench-timeline: all
	tests/bench/timeline.sh
	tools/measurements.sh

# The lraf VM's columns alone (tests/bench/vm.sh)
bench-vm: deps
	tests/bench/vm.sh
	tools/measurements.sh

# Rewriting against compiling, both builds (tests/bench/rwtime.sh)
bench-rw: deps
	tests/bench/rwtime.sh
	tools/measurements.sh

# Loading a huge function: memory and time against lua5.4, both builds
# (tests/bench/rwmem.sh)
bench-rwmem: deps
	tests/bench/rwmem.sh
	tools/measurements.sh

# Calibration of the native cost model and the overhead of charging.
bench-native: all
	tests/bench/native.sh
	@if [ -f build/lua/liblua.a ]; then BUILD=build tests/bench/native.sh --vm; \
	else echo "bench-native: no lraf VM build (build/) to measure its charges"; fi
	tools/measurements.sh

# More generated programs through the differential test (tests/gen):
# seeds START .. START+SEEDS-1.
SEEDS ?= 2000
START ?= 100001
fuzz-diff: $(BUILD)/tests/test_diff_gen $(BUILD)/lraf
	LRAF_DIFF_SEEDS=$(SEEDS) LRAF_DIFF_START=$(START) $(BUILD)/tests/test_diff_gen

# libFuzzer targets (tests/fuzz), built with clang, ASan and UBSan into
# build-fuzz/, run one after another for FUZZ_TIME seconds each on seed
# corpora made from tests/corpus and tests/gen (tests/fuzz/mkcorpus.sh).
FUZZ_TIME    ?= 600
FUZZ_TARGETS := read rewrite source pool pfjson ledger http profile timeline \
                keys bench maxhdr billing journal
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_RUN     := tests/fuzz/corpus-run
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
# the same targets where Lua runs, on the lraf VM (its Lua instrumented
# too): rewriting in memory (runtime/rt_inplace.c) and ACCT
FUZZ_VM_TARGETS := read rewrite source pool profile
FUZZ_VM_BUILD   := build-fuzz-vm
FUZZ_VM_BIN     := $(FUZZ_VM_TARGETS:%=$(FUZZ_VM_BUILD)/fuzz_%)

fuzz-deps: deps
	@command -v clang >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq clang libclang-rt-14-dev; \
	  else echo "lraf: run: sudo apt-get install -y clang libclang-rt-14-dev"; \
	    exit 1; fi; }

fuzz-build: fuzz-deps
	$(MAKE) --no-print-directory $(FUZZ_BUILD)/liblraf.a BUILD=$(FUZZ_BUILD) LRAF_VM=0 \
	  CC=clang OPT=-O1 SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"
	$(MAKE) --no-print-directory $(FUZZ_BIN) BUILD=$(FUZZ_BUILD) LRAF_VM=0 CC=clang \
	  OPT=-O1 SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"
	@if [ -z "$(FUZZ_VM_BIN)" ]; then :; elif lravm/fetch.sh $(LRAVM_SRC); then \
	  $(MAKE) --no-print-directory $(FUZZ_VM_BUILD)/liblraf.a \
	    BUILD=$(FUZZ_VM_BUILD) LRAF_VM=1 CC=clang OPT=-O1 \
	    SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" && \
	  $(MAKE) --no-print-directory $(FUZZ_VM_BIN) FUZZ_BUILD=$(FUZZ_VM_BUILD) \
	    BUILD=$(FUZZ_VM_BUILD) LRAF_VM=1 CC=clang OPT=-O1 \
	    SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"; \
	else echo "SKIP: the lraf VM's fuzz targets: lravm/fetch.sh failed"; fi

FUZZ_UTIL    := $(wildcard tests/support/tutil_fuzz*.c)
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_UTIL) \
                      tests/support/tutil_fuzz.h $(FUZZ_BUILD)/liblraf.a
	clang $(filter-out -fsanitize=fuzzer-no-link,$(CFLAGS)) \
	  -fsanitize=fuzzer -Itests/support -o $@ $< $(FUZZ_UTIL) \
	  $(FUZZ_BUILD)/liblraf.a $(LIBS) $(SERVICE_LIBS)

# fuzz_http: lraf serve's HTTP front linked in (cli/)
FUZZ_SERVE_OBJ := $(addprefix $(FUZZ_BUILD)/cli/,cli_serve_http.o cli_serve_auth.o \
                    cli_serve_metrics.o cli_serve_timeline.o cli_timeline.o \
                    cli_contract.o \
                    cli_util.o cli_dl_mhd.o)
$(FUZZ_BUILD)/fuzz_http $(FUZZ_BUILD)/fuzz_maxhdr: \
  $(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_UTIL) \
                         tests/support/tutil_fuzz.h $(FUZZ_SERVE_OBJ) \
                         $(FUZZ_BUILD)/liblraf.a
	clang $(filter-out -fsanitize=fuzzer-no-link,$(CFLAGS)) -Icli \
	  -fsanitize=fuzzer -Itests/support -o $@ $< $(FUZZ_UTIL) \
	  $(FUZZ_SERVE_OBJ) $(FUZZ_BUILD)/liblraf.a $(LIBS) $(SERVICE_LIBS)

# fuzz_bench: lraf bench's suite and baseline readers (cli/)
FUZZ_BENCH_OBJ := $(addprefix $(FUZZ_BUILD)/cli/,cli_suite.o cli_json.o \
                    cli_baseline.o cli_gate.o cli_util.o)
$(FUZZ_BUILD)/fuzz_bench: tests/fuzz/fuzz_bench.c $(FUZZ_BENCH_OBJ) \
                          $(FUZZ_BUILD)/liblraf.a
	clang $(filter-out -fsanitize=fuzzer-no-link,$(CFLAGS)) -Icli \
	  -fsanitize=fuzzer -o $@ $< $(FUZZ_BENCH_OBJ) $(FUZZ_BUILD)/liblraf.a \
	  $(LIBS)

# Every target of build-fuzz, then those of build-fuzz-vm (named vm-T in
# the corpus directory).
fuzz: fuzz-build
	tests/fuzz/mkcorpus.sh $(FUZZ_RUN)
	@set -e; for bt in $(FUZZ_TARGETS) \
	    $(if $(wildcard $(FUZZ_VM_BUILD)/liblraf.a),$(FUZZ_VM_TARGETS:%=vm-%)); do \
	  case $$bt in vm-*) t=$${bt#vm-}; b=$(FUZZ_VM_BUILD);; \
	               *) t=$$bt; b=$(FUZZ_BUILD);; esac; \
	  case $$t in source|pool|profile) seeds=$(FUZZ_RUN)/source; dict=-dict=tests/fuzz/lua.dict;; \
	              pfjson|ledger|http|keys|bench|maxhdr|journal) seeds=tests/fuzz/$$t; dict=;; \
	              *) seeds=$(FUZZ_RUN)/chunks; dict=;; esac; \
	  mkdir -p $(FUZZ_RUN)/out-$$bt $(FUZZ_RUN)/crash-$$bt; \
	  echo "== $$b/fuzz_$$t for $(FUZZ_TIME) s"; \
	  $$b/fuzz_$$t $(FUZZ_RUN)/out-$$bt $$seeds $$dict \
	    -max_total_time=$(FUZZ_TIME) -max_len=65536 -timeout=20 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_RUN)/crash-$$bt/ 2>&1 | \
	    tee $(FUZZ_RUN)/fuzz_$$bt.log | grep -a -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^==|stat::|ERROR|SUMMARY'; \
	done

clean:
	rm -rf build build-san build-fuzz build-fuzz-vm

# ---- Installing (make install PREFIX=... [DESTDIR=...]) ----
# One build: build/ (the lraf VM) unless BUILD=build/stock LRAF_VM=0.
# The programs that were built (lraf, and lraf-lua where the tree has
# it), liblraf.a and liblraf.so (versioned, with its links), lraf.h,
# lraf.pc for pkg-config (from man/lraf.pc.in) and the man pages lraf(1),
# lraf-lua(1) and lraf(3).
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define LRAF_VERSION "\(.*\)"/\1/p' include/lraf.h)
INST_PROGRAMS := lraf lraf-lua

# The lraf VM build carries its own Lua: its lraf.pc requires nothing
# and points at the lraf VM's headers, installed in include/lraf/ (an
# embedder's lua.h must be the VM's); the stock build's requires lua5.4.
LRAVM_HEADERS := lua.h luaconf.h lualib.h lauxlib.h
PC_REQUIRES := $(if $(filter 1,$(LRAF_VM)),,Requires: lua5.4)
PC_CFLAGS := $(if $(filter 1,$(LRAF_VM)), -I$${includedir}/lraf)

.PHONY: install uninstall
install: programs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man3
	@for p in $(INST_PROGRAMS); do if [ -f $(BUILD)/$$p ]; then \
	  echo "install $(BUILD)/$$p $(DESTDIR)$(PREFIX)/bin/$$p"; \
	  install -m 755 $(BUILD)/$$p $(DESTDIR)$(PREFIX)/bin/$$p; fi; done
	install -m 644 $(BUILD)/liblraf.a $(DESTDIR)$(PREFIX)/lib/liblraf.a
	install -m 755 $(BUILD)/liblraf.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf liblraf.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf liblraf.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/liblraf.so
	install -m 644 include/lraf.h $(DESTDIR)$(PREFIX)/include/lraf.h
	$(if $(filter 1,$(LRAF_VM)),install -d $(DESTDIR)$(PREFIX)/include/lraf && \
	  install -m 644 $(LRAVM_HEADERS:%=$(LRAVM_SRC)/src/%) $(DESTDIR)$(PREFIX)/include/lraf/)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	  -e 's|@REQUIRES@|$(PC_REQUIRES)|' -e 's|@CFLAGS@|$(PC_CFLAGS)|' \
	  man/lraf.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/lraf.pc
	install -m 644 man/lraf.1 $(DESTDIR)$(PREFIX)/share/man/man1/lraf.1
	install -m 644 man/lraf-lua.1 $(DESTDIR)$(PREFIX)/share/man/man1/lraf-lua.1
	install -m 644 man/lraf.3 $(DESTDIR)$(PREFIX)/share/man/man3/lraf.3

uninstall:
	rm -f $(INST_PROGRAMS:%=$(DESTDIR)$(PREFIX)/bin/%) \
	  $(DESTDIR)$(PREFIX)/lib/liblraf.a $(DESTDIR)$(PREFIX)/lib/liblraf.so \
	  $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
	  $(DESTDIR)$(PREFIX)/lib/liblraf.so.$(LIB_VERSION) \
	  $(DESTDIR)$(PREFIX)/include/lraf.h \
	  $(LRAVM_HEADERS:%=$(DESTDIR)$(PREFIX)/include/lraf/%) \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/lraf.pc \
	  $(DESTDIR)$(PREFIX)/share/man/man1/lraf.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man1/lraf-lua.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man3/lraf.3
	rmdir $(DESTDIR)$(PREFIX)/include/lraf 2>/dev/null || true
