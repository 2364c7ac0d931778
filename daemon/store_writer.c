/* store_writer.c — the batches and the writer thread (store_impl.h). */
#include "store_impl.h"

/* Written batches are kept for reuse by a live capture: a steady load
 * cycles through the same ones (the open transaction holds every batch
 * until its COMMIT), and fresh ones would cost a page fault per 4 KiB
 * written. Those a whole store_trim_spares() period did not need (a
 * burst's: a retention cut, a checkpoint) go back to the allocator then,
 * so memory follows the load instead of its peak. Called locked. */
#define SPARE_BATCHES 4

static void recycle(struct store *s, struct batch *b)
{
	/* An import frees what exceeds SPARE_BATCHES at once: keeping them
	 * measured 4.5 times slower (bench/derived.sh's big trace: 27 s
	 * against 6 s, all of it in libtracecmd's record bookkeeping, with
	 * the same peak RSS). */
	if (!s->retain && s->nspare >= SPARE_BATCHES) {
		st_free_batch(b);
		s->nbatches--;
		return;
	}
	b->nops = 0;
	b->start = 0;
	b->text_len = 0;
	b->next = s->spare;
	s->spare = b;
	s->nspare++;
}

static int run_batch(struct store *s, struct batch *b)
{
	for (size_t i = b->start; i < b->nops; i++) {
		if (st_run_op(s, &b->ops[i], b))
			return -1;
		if (b->ops[i].op == OP_COMMIT && s->retain) {
			/* Durable now: what was held for a retry can go. */
			pthread_mutex_lock(&s->lock);
			while (s->held) {
				struct batch *h = s->held;

				s->held = h->next;
				s->nheld--;
				recycle(s, h);
			}
			s->held_tail = NULL;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->lock);
			b->start = i + 1;
		}
	}
	/* The batch's memory is reused: nothing may stay pending. */
	return st_flush_events(s, b);
}

/* A write failed: undo the transaction and put everything it had back at
 * the head of the queue, to run again on store_retry. Called locked. */
static void rewind_locked(struct store *s, struct batch *b)
{
	for (int k = 0; k < TABLE_COUNT; k++) {
		s->pending[k].n = 0;
		sqlite3_reset(s->ins[k]);
		if (s->patch[k])
			sqlite3_reset(s->patch[k]);
	}
	st_forget_keys(s);	/* the rows they counted are undone */
	for (int k = 0; k < ST_COUNT; k++)
		sqlite3_reset(s->misc[k]);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	b->next = s->full;
	s->full = b;
	if (!s->full_tail)
		s->full_tail = b;
	s->nfull++;
	if (s->held) {
		for (struct batch *h = s->held; h; h = h->next)
			s->nfull++;
		s->held_tail->next = s->full;
		s->full = s->held;
		s->held = s->held_tail = NULL;
		s->nheld = 0;
	}
	s->paused = 1;
}

void *st_writer_main(void *arg)
{
	struct store *s = arg;
	struct batch *b;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while ((!s->full || s->paused) && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->full || s->paused)
			break;
		b = s->full;
		s->full = b->next;
		if (!s->full)
			s->full_tail = NULL;
		s->nfull--;
		s->busy = 1;
		/* Without retention, nothing more is written after a failure:
		 * the caller sees the error and gives up. */
		int skip = s->failed && !s->retain;

		pthread_mutex_unlock(&s->lock);
		int rc = skip ? 0 : run_batch(s, b);
		pthread_mutex_lock(&s->lock);
		if (rc && s->retain) {
			s->failed = 1;
			rewind_locked(s, b);
		} else {
			if (rc)
				s->failed = 1;
			if (s->retain && b->start < b->nops) {
				/* Part of the open transaction: hold it. */
				b->next = NULL;
				if (s->held_tail)
					s->held_tail->next = b;
				else
					s->held = b;
				s->held_tail = b;
				s->nheld++;
			} else {
				recycle(s, b);
			}
		}
		s->busy = 0;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Hands the filled batch to the writer (or runs it here). */
/* Whether the writer failed for good (sticky; under retention a failure
 * pauses instead): read under the lock it is written under. */
static int failed_for_good(struct store *s)
{
	int f;

	if (!s->threaded)
		return s->failed && !s->retain;
	pthread_mutex_lock(&s->lock);
	f = s->failed && !s->retain;
	pthread_mutex_unlock(&s->lock);
	return f;
}

int st_submit(struct store *s)
{
	struct batch *b = s->fill;
	int rc = 0;

	if (!b->nops)
		return failed_for_good(s) ? -1 : 0;
	s->fill_gen++;		/* its ops can no longer be changed */
	if (!s->threaded) {
		rc = run_batch(s, b);
		b->nops = 0;
		b->start = 0;
		b->text_len = 0;
		if (rc)
			s->failed = 1;
		return rc;
	}
	pthread_mutex_lock(&s->lock);
	/* Batches held for the open transaction come back only after its
	 * COMMIT, which may still be in the caller's hands: so whenever
	 * fewer than MAX_BATCHES wait for the writer (or it is paused), a
	 * new one is made rather than waiting for a spare that would never
	 * come. */
	while (!s->spare) {
		if (s->nfull < MAX_BATCHES || s->paused) {
			struct batch *nb = calloc(1, sizeof(*nb));

			if (nb) {
				s->nbatches++;
				nb->next = s->spare;
				s->spare = nb;
				s->nspare++;
				break;
			}
		}
		pthread_cond_wait(&s->cond, &s->lock);
	}
	b->next = NULL;
	if (s->full_tail)
		s->full_tail->next = b;
	else
		s->full = b;
	s->full_tail = b;
	s->nfull++;
	s->fill = s->spare;
	s->spare = s->fill->next;
	s->fill->next = NULL;
	s->nspare--;
	if (s->nspare < s->spare_low)
		s->spare_low = s->nspare;
	rc = s->failed && !s->retain ? -1 : 0;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void store_trim_spares(struct store *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	/* Spares that were never all in use since the last call: not
	 * needed by the load; a few stay for the next burst. */
	n = s->spare_low < s->nspare - SPARE_BATCHES ? s->spare_low
						      : s->nspare - SPARE_BATCHES;
	for (; n > 0 && s->spare; n--) {
		struct batch *b = s->spare;

		s->spare = b->next;
		s->nspare--;
		s->nbatches--;
		st_free_batch(b);
	}
	s->spare_low = s->nspare;
	pthread_mutex_unlock(&s->lock);
}

/* Waits until everything queued is in SQLite. */
int st_drain(struct store *s)
{
	if (st_submit(s))
		return -1;
	if (!s->threaded)
		return s->failed ? -1 : 0;
	int f;

	pthread_mutex_lock(&s->lock);
	while ((s->full || s->busy) && !s->paused)
		pthread_cond_wait(&s->cond, &s->lock);
	f = s->failed;
	pthread_mutex_unlock(&s->lock);
	return f ? -1 : 0;
}

struct op *st_new_op(struct store *s, enum op_kind kind)
{
	struct op *o;

	if (s->fill->nops == BATCH_OPS && st_submit(s))
		return NULL;
	o = &s->fill->ops[s->fill->nops++];
	o->op = (uint8_t)kind;
	return o;
}

/* Copies text into the batch; returns its offset or UINT32_MAX. */
uint32_t st_add_text(struct store *s, const char *text, size_t len)
{
	struct batch *b = s->fill;
	uint32_t off;

	if (grow_array(&b->text, &b->text_cap, 1, b->text_len + len, 0)) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return UINT32_MAX;
	}
	off = (uint32_t)b->text_len;
	if (len)
		memcpy(b->text + off, text, len);
	b->text_len += len;
	return off;
}

void st_free_batch(struct batch *b)
{
	if (!b)
		return;
	free(b->text);
	free(b);
}
