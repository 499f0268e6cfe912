# tablescan_fdw - PGXS build.
#
# Layers below src/fdw are plain C: they are compiled twice, once into the
# extension (with PostgreSQL's flags) and once into build/libts.a for the
# unit tests, fuzzers, tools and benchmarks that run without a server.

MODULE_big = tablescan_fdw
EXTENSION = tablescan_fdw
DATA = sql/tablescan_fdw--0.1.sql
PGFILEDESC = "tablescan_fdw - query Apache Paimon tables in place"

CORE_DIRS ?= src/base src/expr src/meta src/scan src/read src/write src/format \
	$(sort $(dir $(wildcard src/format/*/*.c)))
CORE_SRCS := $(sort $(wildcard $(addsuffix /*.c,$(patsubst %/,%,$(CORE_DIRS)))))
FDW_SRCS := $(sort $(wildcard src/fdw/*.c))
OBJS = $(CORE_SRCS:.c=.o) $(FDW_SRCS:.c=.o)

LIBS_CORE = -lcjson -lzstd -lsnappy -llz4 -lz -lbz2 -lroaring -lxml2 -lcrypto -lm
PG_CPPFLAGS = -I$(srcdir)/src -I/usr/include/cjson -I/usr/include/libxml2
PG_CFLAGS = -Wall -Werror -Wno-declaration-after-statement
# libsnappy (and the libstdc++ it brings) is loaded on first use: src/base/snappy.c;
# libcurl (and nghttp2, ssh2, rtmp, psl, brotli ...) too, by the first remote
# request: src/base/curl_dl.c.  Neither is linked.
# -Bsymbolic binds the library's calls to its own functions at link time:
# fewer symbols for the dynamic linker to look up when a backend loads it.
SHLIB_LINK = $(filter-out -lsnappy,$(LIBS_CORE)) -Wl,-Bsymbolic

REGRESS = $(patsubst sql/%.sql,%,$(sort $(filter-out sql/tablescan_fdw--%.sql,$(wildcard sql/*.sql))))
REGRESS_OPTS = --encoding=UTF8
# the regress files find their fixtures through \getenv (test/make-fixtures.sh DIR)
TS_FIXTURES ?= /tmp/tablescan_fdw_fixtures
export TS_FIXTURES

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ---- server-free build: unit tests, tools, fuzzers, benchmarks ----------

BUILD ?= build
SANITIZE ?=
CORE_CC ?= cc
CORE_WERROR ?= -Werror
CORE_CFLAGS = -std=gnu11 -g -O2 -Wall $(CORE_WERROR) -Isrc -I/usr/include/cjson -I/usr/include/libxml2 $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -O1)
CORE_OBJS = $(patsubst src/%.c,$(BUILD)/core/%.o,$(CORE_SRCS))
UNIT_SRCS := $(sort $(wildcard test/unit/test_*.c))
UNIT_BINS = $(patsubst test/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))
TOOL_SRCS := $(sort $(wildcard src/tools/*.c))
TOOL_BINS = $(patsubst src/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))

$(BUILD)/core/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/libts.a: $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/unit/%: test/unit/%.c $(wildcard test/unit/*.h) $(BUILD)/libts.a
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) -Itest/unit $< -o $@ $(BUILD)/libts.a -lcmocka $(LIBS_CORE)

$(BUILD)/tools/%: src/tools/%.c $(BUILD)/libts.a
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) $< -o $@ $(BUILD)/libts.a $(LIBS_CORE)

# bench/ts_*.c: server-free benchmark programs (the scripts in bench/ build them)
BENCH_SRCS := $(sort $(wildcard bench/ts_*.c))
BENCH_BINS = $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

$(BUILD)/bench/%: bench/%.c $(BUILD)/libts.a
	@mkdir -p $(dir $@)
	$(CORE_CC) $(CORE_CFLAGS) $< -o $@ $(BUILD)/libts.a $(LIBS_CORE)

.PHONY: core unit tools bench-bins run-unit fuzz print-libs
FUZZ_SECONDS ?= 60
fuzz:
	bash test/fuzz/run.sh $(FUZZ_SECONDS)

core: $(BUILD)/libts.a
tools: $(TOOL_BINS)
bench-bins: $(BENCH_BINS)
# what a program linking libts.a links besides (scripts with their own build modes)
print-libs:
	@echo $(LIBS_CORE)
unit: $(UNIT_BINS)
run-unit: unit
	@bash test/run-unit.sh $(BUILD)/unit

EXTRA_CLEAN = build test/regress-work

# Headers are shared across layers: rebuild everything when one changes
# (PGXS tracks no header dependencies without --enable-depend).
ALL_HEADERS := $(wildcard src/*/*.h src/format/*/*.h)
$(OBJS) $(CORE_OBJS): $(ALL_HEADERS)

# tools include their headers in src/tools; test_range_bitmap shares the index writer
$(TOOL_BINS): $(wildcard src/tools/*.h)
$(BUILD)/unit/test_range_bitmap: src/tools/ts_file_index_write.h
# the PK model test compiles the generator in
$(BUILD)/unit/test_pk_model: src/tools/ts_gen.c src/tools/ts_gen_pk.h src/tools/ts_gen_pk_write.h \
	src/tools/ts_gen_index.h src/tools/ts_file_index_write.h \
	src/tools/ts_gen_args.h src/tools/ts_gen_values.h src/tools/ts_gen_schema_json.h src/tools/ts_gen_stats.h
# the cache, incremental and row-id selection tests generate tables with ts_gen
$(BUILD)/unit/test_scan_cache $(BUILD)/unit/test_scan_incremental $(BUILD)/unit/test_row_id_selection: \
	$(BUILD)/tools/ts_gen

# Benchmarks (figures, never assertions): make bench SIZE=tiny|small|default
.PHONY: bench
bench:
	bash bench/run.sh $(or $(SIZE),default)
