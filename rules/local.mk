## rules/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += rules/rules.h rules/plan.h rules/summary.h rules/groups.h rules/chains.h rules/shapes.h \
	rules/report.h rules/propose.h rules/verify.h rules/screen.h rules/space.h rules/proto.h rules/keys.h \
	rules/outputs.h rules/vendor.h rules/common.h rules/common.c rules/proto.c rules/keys.c rules/outputs.c \
	rules/vendor.c rules/space_pick.c rules/capture.c rules/profile.c rules/summary.c rules/groups.c \
	rules/propose.c rules/verify.c rules/stitch.h rules/stitch.c rules/stitch_out.c \
	rules/report.c rules/report_device.c rules/report_capture.c rules/plan.c rules/screen.c rules/space.c rules/chains.c \
	rules/measured.h rules/measured.c rules/shapes.c rules/deploy.c
libkopt_a_SOURCES += rules/svg.h rules/svg.c
# the model files read with Python's own parser (-t check, every build):
# modelcheck.py's text, a C string that modelcheck.c runs with -c
libkopt_a_SOURCES += rules/modelcheck.h rules/modelcheck.c
BUILT_SOURCES += rules/modelcheck.inc
CLEANFILES += rules/modelcheck.inc
EXTRA_DIST += rules/modelcheck.py
rules/modelcheck.inc: rules/modelcheck.py
	$(AM_V_GEN)$(MKDIR_P) rules && $(SED) -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/rules/modelcheck.py > $@.tmp && mv $@.tmp $@
TESTS += tests/e2e/stitch-order.sh
EXTRA_DIST += tests/e2e/stitch-order.sh
TESTS += tests/e2e/screen.sh tests/e2e/screen-gamma.sh tests/e2e/knobs.sh tests/e2e/chains.sh
EXTRA_DIST += tests/e2e/screen.sh tests/e2e/screen-gamma.sh tests/e2e/knobs.sh tests/e2e/chains.sh
check_PROGRAMS += tests/unit/screen_test
tests_unit_screen_test_SOURCES = tests/unit/screen_test.c tests/tap.h
TESTS += tests/unit/screen_test
TESTS += tests/e2e/space-search.sh tests/e2e/space-names.sh
EXTRA_DIST += tests/e2e/space-search.sh tests/e2e/space-names.sh
