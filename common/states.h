/* states — a task state as the kernel that recorded it letters it
 * (sched_switch's prev_state, its format's __print_flags table), in the
 * numbering of kernels since 4.14: S 1, D 2, T 4, t 8, X 16, Z 32, P 64,
 * I 128, and 256 for a preempted task (R+).
 *
 * Kernels before 4.14 gave prev_state as the raw task state: other bits
 * (3.x-4.13: Z 16, X 32, x 64 for TASK_DEAD, K 128, W 256, P 512, N 1024,
 * the preempted mark above the table: 1024 or 2048), and a kernel
 * thread's idle wait (TASK_IDLE) as D|N where later kernels say I. The
 * derived tables read states in one numbering: a task's time off the
 * CPUs (thread_state), whether a switch-out is a task's last. The raw
 * value stays in sched_switch.prev_state and sched.end_state, which
 * state_name() letters with the capture's own table. */
#ifndef COMMD_STATES_H
#define COMMD_STATES_H

#include <stdint.h>

enum {
	STATE_SLEEPING = 1, STATE_UNINTERRUPTIBLE = 2, STATE_STOPPED = 4,
	STATE_TRACED = 8, STATE_DEAD = 16, STATE_ZOMBIE = 32, STATE_PARKED = 64,
	STATE_IDLE = 128, STATE_PREEMPTED = 256,
};

struct state_map {
	int identity;		/* the table is today's: values pass as they are */
	int nbits;
	struct {
		int64_t bit;	/* the kernel's */
		int64_t to;	/* today's (0: a flag with no state of its own) */
	} bits[24];
	int64_t preempt;	/* the kernel's preempted mark, 0: none */
	int64_t noload;		/* N (TASK_NOLOAD), 0: none */
};

/* From "V:L,V:L,...,0:R,+P" (pipeline's state_letters); NULL or a table
 * not read: today's. */
void state_map_init(struct state_map *m, const char *letters);

int64_t state_translate(const struct state_map *m, int64_t s);

/* The kernel's state (-1: not known) in today's numbering; a value with a
 * bit the table does not name stays as it is. */
static inline int64_t state_today(const struct state_map *m, int64_t s)
{
	return m->identity || s <= 0 ? s : state_translate(m, s);
}

/* Whether a switch-out in state s (today's numbering) is the task's last:
 * X or Z and nothing else. */
static inline int state_dead(int64_t s)
{
	return s > 0 && (s & (STATE_DEAD | STATE_ZOMBIE)) && !(s & ~(int64_t)0xff);
}

#endif
