/* states — a recorded task state in today's numbering (states.h). */
#include "states.h"

#include <stdlib.h>
#include <string.h>

#include "sqlfuncs.h"

/* Today's bit for a letter of an older table; 0 for a flag that is no
 * state of its own (K: wakekill, W: waking, N: noload). */
static int64_t today_of(char letter)
{
	switch (letter) {
	case 'S': return STATE_SLEEPING;
	case 'D': return STATE_UNINTERRUPTIBLE;
	case 'T': return STATE_STOPPED;
	case 't': return STATE_TRACED;
	case 'X': return STATE_DEAD;
	case 'x': return STATE_DEAD;	/* TASK_DEAD: the last switch-out */
	case 'Z': return STATE_ZOMBIE;
	case 'P': return STATE_PARKED;
	case 'I': return STATE_IDLE;
	default: return 0;
	}
}

void state_map_init(struct state_map *m, const char *letters)
{
	const char *p;

	memset(m, 0, sizeof(*m));
	m->identity = 1;
	if (!letters || !*letters || !strcmp(letters, STATE_LETTERS_TODAY))
		return;
	for (p = letters; *p; p += strcspn(p, ","), p += *p == ',') {
		char *end;
		int64_t v;

		if (*p == '+') {
			m->preempt = strtoll(p + 1, NULL, 10);
			continue;
		}
		v = strtoll(p, &end, 10);
		if (*end != ':' || v <= 0 || !end[1] || (end[2] != ',' && end[2]) ||
		    m->nbits == (int)(sizeof(m->bits) / sizeof(m->bits[0])))
			continue;	/* 0:R, or a letter of more than one char */
		m->bits[m->nbits].bit = v;
		m->bits[m->nbits].to = today_of(end[1]);
		if (end[1] == 'N')
			m->noload = v;
		m->nbits++;
	}
	if (!m->nbits)
		return;		/* nothing read: today's */
	m->identity = 0;
}

int64_t state_translate(const struct state_map *m, int64_t s)
{
	int64_t left = s, out = 0;

	if (m->preempt && (s & m->preempt)) {
		left &= ~m->preempt;
		out |= STATE_PREEMPTED;
	}
	for (int i = 0; i < m->nbits; i++)
		if (left & m->bits[i].bit) {
			left &= ~m->bits[i].bit;
			out |= m->bits[i].to;
		}
	if (left)
		return s;	/* a bit the table does not name */
	/* TASK_IDLE (D|N) of 4.2-4.13: I since */
	if (m->noload && (s & m->noload) && (out & STATE_UNINTERRUPTIBLE))
		out = (out & ~(int64_t)STATE_UNINTERRUPTIBLE) | STATE_IDLE;
	return out;
}
