/* test_kallsyms.c — kallsyms.c: the three modes of commd's
 * tep_parse_kallsyms against libtraceevent's own function map, and that
 * commd's definition is the one a library's call binds to. */
#define _GNU_SOURCE
#include "check.h"

#include "kallsyms.h"

#include <dlfcn.h>
#include <traceevent/event-parse.h>

static const char text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_nanosleep\n"
	"ffffffff81002000 t schedule_timeout\n"
	"ffffffff81003000 T _etext\n";

#define IN_NANOSLEEP 0xffffffff81001010ULL

static void modes(void)
{
	struct tep_handle *tep = tep_alloc();

	/* now: libtraceevent's map has it at once */
	CHECK_INT(kallsyms_mode(KALLSYMS_NOW), KALLSYMS_NOW);
	CHECK_INT(tep_parse_kallsyms(tep, text), 0);
	CHECK_STR(tep_find_function(tep, IN_NANOSLEEP), "do_nanosleep");
	CHECK_INT(kallsyms_pending(), 0);
	tep_free(tep);

	/* later: kept, parsed by the first load, once */
	tep = tep_alloc();
	kallsyms_mode(KALLSYMS_LATER);
	CHECK_INT(tep_parse_kallsyms(tep, text), 0);
	CHECK_INT(kallsyms_mode(KALLSYMS_NOW), KALLSYMS_LATER);
	CHECK_INT(kallsyms_pending(), 1);
	/* (no look before the load: libtraceevent builds its sorted map at
	 * the first look and does not rebuild it; stacks.c loads first) */
	CHECK_INT(kallsyms_load(tep), 0);
	CHECK_INT(kallsyms_pending(), 0);
	CHECK_STR(tep_find_function(tep, IN_NANOSLEEP), "do_nanosleep");
	CHECK_INT(kallsyms_load(tep), 0);
	CHECK_STR(tep_find_function(tep, IN_NANOSLEEP), "do_nanosleep");
	tep_free(tep);

	/* later, then forgotten (the tep is about to be freed) */
	tep = tep_alloc();
	kallsyms_mode(KALLSYMS_LATER);
	tep_parse_kallsyms(tep, text);
	tep_parse_kallsyms(tep, text);	/* a second section replaces the first */
	kallsyms_mode(KALLSYMS_NOW);
	CHECK_INT(kallsyms_pending(), 1);
	kallsyms_forget(tep);
	CHECK_INT(kallsyms_pending(), 0);
	CHECK_INT(kallsyms_load(tep), 0);
	CHECK(tep_find_function(tep, IN_NANOSLEEP) == NULL);
	tep_free(tep);

	/* never: nothing kept, nothing parsed */
	tep = tep_alloc();
	kallsyms_mode(KALLSYMS_NEVER);
	CHECK_INT(tep_parse_kallsyms(tep, text), 0);
	kallsyms_mode(KALLSYMS_NOW);
	CHECK_INT(kallsyms_pending(), 0);
	CHECK(tep_find_function(tep, IN_NANOSLEEP) == NULL);
	tep_free(tep);
}

/* libtracecmd's call goes through the global scope, where the executable
 * comes first: the definition found there must be commd's, or every
 * import parses its kallsyms up front again. */
static void bound(void)
{
	void *global = dlsym(RTLD_DEFAULT, "tep_parse_kallsyms");
	void *next = dlsym(RTLD_NEXT, "tep_parse_kallsyms");

	CHECK(global == (void *)tep_parse_kallsyms);
	CHECK(next != NULL && next != global);
}

int main(void)
{
	RUN(modes);
	RUN(bound);
	return check_done("test_kallsyms");
}
