/* kallsyms.c — a trace.dat's kallsyms parsed when a stack needs them
 * (kallsyms.h says why). One thread at a time: the import's, or the live
 * daemon's start. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "log.h"

struct kept {
	struct tep_handle *tep;
	char *text;
	struct kept *next;
};

static enum kallsyms_mode mode_now = KALLSYMS_NOW;
static struct kept *kept;

typedef int (*parse_fn)(struct tep_handle *tep, const char *buf);

int tep_parse_kallsyms(struct tep_handle *tep, const char *buf);

/* libtraceevent's own parser: the next definition after ours. */
static int parse_real(struct tep_handle *tep, const char *buf)
{
	static parse_fn real;

	if (!real)
		real = (parse_fn)dlsym(RTLD_NEXT, "tep_parse_kallsyms");
	if (!real || real == tep_parse_kallsyms) {
		log_warning("kallsyms: libtraceevent's parser not found");
		return -1;
	}
	return real(tep, buf);
}

int tep_parse_kallsyms(struct tep_handle *tep, const char *buf)
{
	struct kept *k;

	switch (mode_now) {
	case KALLSYMS_NEVER:
		return 0;
	case KALLSYMS_LATER:
		kallsyms_forget(tep);	/* a second section: the last one holds */
		k = malloc(sizeof(*k));
		if (k && (k->text = strdup(buf))) {
			k->tep = tep;
			k->next = kept;
			kept = k;
			return 0;
		}
		free(k);
		break;		/* no memory to keep it: parse now */
	case KALLSYMS_NOW:
		break;
	}
	return parse_real(tep, buf);
}

enum kallsyms_mode kallsyms_mode(enum kallsyms_mode mode)
{
	enum kallsyms_mode before = mode_now;

	mode_now = mode;
	return before;
}

/* Unlinks tep's entry and returns it (NULL: none). */
static struct kept *take(struct tep_handle *tep)
{
	for (struct kept **p = &kept; *p; p = &(*p)->next)
		if ((*p)->tep == tep) {
			struct kept *k = *p;

			*p = k->next;
			return k;
		}
	return NULL;
}

int kallsyms_load(struct tep_handle *tep)
{
	struct kept *k;
	int rc;

	if (!kept || !(k = take(tep)))
		return 0;
	rc = parse_real(tep, k->text) < 0 ? -1 : 0;
	free(k->text);
	free(k);
	return rc;
}

void kallsyms_forget(struct tep_handle *tep)
{
	struct kept *k = tep ? take(tep) : NULL;

	if (k) {
		free(k->text);
		free(k);
	}
}

int kallsyms_pending(void)
{
	int n = 0;

	for (struct kept *k = kept; k; k = k->next)
		n++;
	return n;
}
