# lraf - build, test and benchmark.
#
#   make run    install missing packages, build, list a bundled example
#   make test   install missing packages, build, run every test
#   make examples  build examples/*.c into $(BUILD)/examples (tests run them)
#   make bench  overhead benchmarks (tests/bench; bench-native: native
#               cost calibration and the overhead of native charging)
#   make fuzz-diff SEEDS=N [START=S]   differential test of N generated programs
#   make fuzz [FUZZ_TIME=600]          each libFuzzer target for FUZZ_TIME s
#
# Layers (a folder uses only the folders above it; accounts/ knows no
# Lua).  Every module's sources go into build/liblraf.{a,so}, which
# exports only what include/lraf.h marks LRAF_API:
#   common/    err_fail (the error value every layer fills), status names
#   vm/        Lua 5.4 bytecode in memory: vm_read, checks, vm_list, vm_write
#   rewriter/  rw_rewrite adds the accounting code to a chunk; rw_verify
#   accounts/  accounts and managers (total, limit, hierarchical, rate)
#   runtime/   the host API: states, loading, calls, the counter
#   cli/       the lraf command, compiled against include/lraf.h only
#
# What a load does (runtime/rt_load.c, rt_pipeline.c): Lua's parser
# compiles the source (text only) -> rt_dump (lua_dump) -> vm_read ->
# rw_rewrite -> rw_verify -> vm_write -> lua_load, and the chunk's
# counter and consume upvalues are joined to the state's.  The running
# code adds block costs to the counter; when it reaches 0 it calls
# consume (rt_counter.c), which charges the thread's account, whose
# manager (accounts/) may let it go on, make it sleep, or stop it with
# the quota error (rt_protect.c).  lraf_rewrite runs the same pipeline
# offline and writes the chunk behind a marker and the cost-model id.
#
# Native charging (docs/cost-model.md): runtime/rt_native.c wraps the
# built-ins the models of rt_natcost.c size (with rt_natnext.c,
# rt_nattab.c, rt_natmore.c, rt_match.c; units in rt_natunits.c);
# rt_rwmem.c counts the rewriter's memory under the memory limit.  The
# amplification suite is tests/amplify/*.lua, run by test_amplify.

CC      ?= cc
LUA_PC  := lua5.4
PKGS    := liblua5.4-dev lua5.4 lua-lpeg libcmocka-dev pkg-config valgrind
BUILD   ?= build
OPT     ?= -O2
SAN     ?=

LUA_CFLAGS := $(shell pkg-config --cflags $(LUA_PC) 2>/dev/null)
LUA_LIBS   := $(shell pkg-config --libs $(LUA_PC) 2>/dev/null)

CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(OPT) -g \
           -fPIC -Iinclude -Icommon -Ivm -Irewriter -Iaccounts -Iruntime $(LUA_CFLAGS) $(SAN)
LDFLAGS := $(SAN)
LIBS    := $(LUA_LIBS) -lm -lpthread

MODULES  := common vm rewriter accounts runtime
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
CLI_SRC  := $(wildcard cli/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
HEADERS  := $(wildcard include/*.h cli/*.h $(foreach m,$(MODULES),$(m)/*.h))

# tests/unit: one module each; tests/system: whole programs and the
# command; tests/support: helpers linked into every test.
TEST_SRC := $(wildcard tests/unit/test_*.c tests/system/test_*.c)
TEST_BIN := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(TEST_SRC)))
TEST_SUPPORT := $(wildcard tests/support/*.c)

# examples/*.c: each one program over the public header only.
EX_BIN   := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

.PHONY: all deps run test check unit san-test bench bench-native clean examples memcheck \
        fuzz fuzz-build fuzz-deps fuzz-diff

all: deps $(BUILD)/liblraf.a $(BUILD)/liblraf.so $(BUILD)/lraf examples

# Install the Debian packages lraf needs, or say how to.
deps:
	@missing=""; for p in $(PKGS); do \
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
$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -c $< -o $@

# The command is compiled against the public header alone (and its own
# cli/*.h): no internal header of the library is on its include path.
CLI_CFLAGS := $(filter-out -Icommon -Ivm -Irewriter -Iaccounts -Iruntime,$(CFLAGS)) -Icli
$(BUILD)/cli/%.o: cli/%.c include/lraf.h $(wildcard cli/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(BUILD)/liblraf.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/liblraf.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/lraf: $(CLI_OBJ) $(BUILD)/liblraf.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/liblraf.a $(LIBS)

vpath test_%.c tests/unit tests/system
$(BUILD)/tests/%: %.c $(TEST_SUPPORT) $(BUILD)/liblraf.a $(HEADERS) tests/support/*.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/support -o $@ $< $(TEST_SUPPORT) $(BUILD)/liblraf.a $(LIBS) -lcmocka

examples: $(EX_BIN)

$(BUILD)/examples/%: examples/%.c $(BUILD)/liblraf.a include/lraf.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $(OPT) -g \
	  -Iinclude $(LUA_CFLAGS) $(SAN) -o $@ $< $(BUILD)/liblraf.a $(LIBS)

# Run the bundled example counted, with a summary on stderr.
run: all
	$(BUILD)/lraf run --report - examples/hello.lua

# Every unit test, then the same tests under ASan and UBSan, then the
# runtime's tests and the lraf command under valgrind.
test: deps
	$(MAKE) --no-print-directory unit
	LRAF_QUICK=1 $(MAKE) --no-print-directory unit BUILD=build-san OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	$(MAKE) --no-print-directory memcheck

MEMCHECK_TESTS := test_rt_api test_rt_load test_rt_sandbox test_rt_quota \
                  test_rt_cli test_acct_managers test_acct_threads \
                  test_vm_malformed test_rw_checks
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --error-exitcode=9

memcheck: $(BUILD)/lraf $(MEMCHECK_TESTS:%=$(BUILD)/tests/%)
	@set -e; for t in $(MEMCHECK_TESTS); do \
	  echo "== valgrind $$t"; \
	  LRAF_QUICK=1 LRAF=$(BUILD)/lraf $(VALGRIND) $(BUILD)/tests/$$t >/dev/null; done
	$(VALGRIND) $(BUILD)/lraf run --report - examples/hello.lua >/dev/null

unit: $(BUILD)/liblraf.a $(BUILD)/liblraf.so $(BUILD)/lraf $(EX_BIN) $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do \
	  echo "== $$t"; LRAF=$(BUILD)/lraf $$t; done

bench: all
	tests/bench/run.sh
	tests/bench/native.sh

# Calibration of the native cost model and the overhead of charging.
bench-native: all
	tests/bench/native.sh

# More generated programs through the differential test (tests/gen):
# seeds START .. START+SEEDS-1.
SEEDS ?= 2000
START ?= 100001
fuzz-diff: $(BUILD)/tests/test_diff_gen
	LRAF_DIFF_SEEDS=$(SEEDS) LRAF_DIFF_START=$(START) $(BUILD)/tests/test_diff_gen

# libFuzzer targets (tests/fuzz), built with clang, ASan and UBSan into
# build-fuzz/, run one after another for FUZZ_TIME seconds each on seed
# corpora made from tests/corpus and tests/gen (tests/fuzz/mkcorpus.sh).
FUZZ_TIME    ?= 600
FUZZ_TARGETS := read rewrite source
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_RUN     := tests/fuzz/corpus-run
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz-deps: deps
	@command -v clang >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq clang libclang-rt-14-dev; \
	  else echo "lraf: run: sudo apt-get install -y clang libclang-rt-14-dev"; \
	    exit 1; fi; }

fuzz-build: fuzz-deps
	$(MAKE) --no-print-directory $(FUZZ_BUILD)/liblraf.a BUILD=$(FUZZ_BUILD) \
	  CC=clang OPT=-O1 SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"
	$(MAKE) --no-print-directory $(FUZZ_BIN) BUILD=$(FUZZ_BUILD) CC=clang \
	  OPT=-O1 SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link"

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/support/tutil_fuzz.c \
                      tests/support/tutil_fuzz.h $(FUZZ_BUILD)/liblraf.a
	clang $(filter-out -fsanitize=fuzzer-no-link,$(CFLAGS)) \
	  -fsanitize=fuzzer -Itests/support -o $@ $< tests/support/tutil_fuzz.c \
	  $(FUZZ_BUILD)/liblraf.a $(LIBS)

fuzz: fuzz-build
	tests/fuzz/mkcorpus.sh $(FUZZ_RUN)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  case $$t in source) seeds=$(FUZZ_RUN)/source; dict=-dict=tests/fuzz/lua.dict;; \
	              *) seeds=$(FUZZ_RUN)/chunks; dict=;; esac; \
	  mkdir -p $(FUZZ_RUN)/out-$$t $(FUZZ_RUN)/crash-$$t; \
	  echo "== fuzz_$$t for $(FUZZ_TIME) s"; \
	  $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN)/out-$$t $$seeds $$dict \
	    -max_total_time=$(FUZZ_TIME) -max_len=65536 -timeout=20 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_RUN)/crash-$$t/ 2>&1 | \
	    tee $(FUZZ_RUN)/fuzz_$$t.log | grep -a -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^==|stat::|ERROR|SUMMARY'; \
	done

clean:
	rm -rf build build-san build-fuzz
