# simhash: PGXS build.  `make demo` and `make test` are the two commands the
# README names; everything else is ordinary PGXS (make, make install,
# make installcheck).

EXTENSION   = simhash
MODULE_big  = simhash
DATA        := $(wildcard sql/simhash--*.sql)
CORE_SRCS   = $(wildcard src/core/*.cpp)
GLUE_SRCS   = $(wildcard src/pg/*.cpp) $(wildcard src/index/*.cpp)
OBJS        = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

# Every sql/*.sql except the install scripts is a pg_regress test.
REGRESS     := $(sort $(basename $(notdir $(filter-out $(DATA),$(wildcard sql/*.sql)))))
REGRESS_OPTS = --encoding=UTF8 --no-locale
ISOLATION      := $(sort $(basename $(notdir $(wildcard test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=test/isolation/output --no-locale
TAP_TESTS   := $(if $(wildcard test/t/*.pl),1,)
PROVE_TESTS := $(wildcard test/t/*.pl)

# SIMHASH_WERROR=1 (set by `make test`) turns warnings into errors.
# -Wshadow=compatible-local is in the flags PostgreSQL 16 and later build with:
# here too, so that a build for 15 fails where theirs would.
SIMHASH_WARN = -Wall -Wextra -Wshadow=compatible-local -Wno-unused-parameter -Wno-missing-field-initializers \
               -Wno-sign-compare -Wno-register -Wno-cast-function-type
PG_CXXFLAGS = -std=c++17 -O2 $(SIMHASH_WARN) $(if $(SIMHASH_WERROR),-Werror,) -Isrc/core -Isrc/pg -Isrc/index
PG_CPPFLAGS = -DXXH_INLINE_ALL
SHLIB_LINK  = -lstdc++

EXTRA_CLEAN = test/unit/build test/isolation/output results regression.diffs regression.out tmp_check

PG_CONFIG ?= pg_config
# Debian's PGXS would compile every .cpp to LLVM bitcode with its own C++14
# flags; our C++17 sources cannot be inlined by JIT that way.
override with_llvm = no
override autodepend = yes
# demo and test install PostgreSQL's packages themselves (scripts/install-deps.sh):
# they must start on a machine without pg_config, and say nothing of it.
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
else ifeq ($(filter-out demo test dist,$(or $(MAKECMDGOALS),all)),)
else
$(error $(PG_CONFIG) not found: install postgresql-server-dev-15 (bash scripts/install-deps.sh does), or set PG_CONFIG)
endif

# The PGXN archive of the committed tree (HEAD), as PGXN Manager takes it: one
# top directory simhash-VERSION/ holding META.json, VERSION being the
# control file's default_version.
EXTVERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" simhash.control)
DIST        = simhash-$(EXTVERSION).zip

.PHONY: demo test unit dist
demo:
	bash scripts/demo.sh
test:
	bash scripts/test-all.sh
unit:
	$(MAKE) -C test/unit
dist:
	git archive --format=zip --prefix=simhash-$(EXTVERSION)/ --output=$(DIST) HEAD
